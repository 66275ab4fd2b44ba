package api

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kubecache/kubecache/selector"
)

// LabelSelector is the structured label selector of workloads and
// services: every matchLabels pair and every expression must hold.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// Empty reports whether the selector has no requirement (it matches
// everything, which workload controllers refuse).
func (s *LabelSelector) Empty() bool {
	return s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0)
}

// Selector converts s to a selector.Labels. A nil selector matches
// nothing, as the API's conversion says.
func (s *LabelSelector) Selector() (selector.Labels, error) {
	if s == nil {
		req, _ := selector.NewRequirement("kubecache.dev/nothing", selector.Exists)
		none, _ := selector.NewRequirement("kubecache.dev/nothing", selector.DoesNotExist)
		return selector.NewLabels(req, none), nil
	}
	var reqs []selector.Requirement
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		r, err := selector.NewRequirement(k, selector.Equals, s.MatchLabels[k])
		if err != nil {
			return selector.Labels{}, err
		}
		reqs = append(reqs, r)
	}
	for _, e := range s.MatchExpressions {
		var op selector.Operator
		switch e.Operator {
		case "In":
			op = selector.In
		case "NotIn":
			op = selector.NotIn
		case "Exists":
			op = selector.Exists
		case "DoesNotExist":
			op = selector.DoesNotExist
		default:
			return selector.Labels{}, fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
		r, err := selector.NewRequirement(e.Key, op, e.Values...)
		if err != nil {
			return selector.Labels{}, err
		}
		reqs = append(reqs, r)
	}
	return selector.NewLabels(reqs...), nil
}

// Matches reports whether labels satisfy s; a selector that does not
// convert matches nothing.
func (s *LabelSelector) Matches(labels map[string]string) bool {
	sel, err := s.Selector()
	return err == nil && sel.Matches(labels)
}

// WithLabel returns a copy of s that also requires key=value.
func (s *LabelSelector) WithLabel(key, value string) *LabelSelector {
	out := &LabelSelector{MatchLabels: map[string]string{key: value}}
	if s != nil {
		maps.Copy(out.MatchLabels, s.MatchLabels)
		out.MatchLabels[key] = value
		out.MatchExpressions = slices.Clone(s.MatchExpressions)
	}
	return out
}
