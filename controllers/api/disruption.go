package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// PodDisruptionBudget is a policy/v1 PodDisruptionBudget: how many of the
// pods it selects may be down at once by a voluntary disruption (an
// eviction).
type PodDisruptionBudget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            PodDisruptionBudgetSpec   `json:"spec"`
	Status          PodDisruptionBudgetStatus `json:"status"`
}

// PodDisruptionBudgetSpec is a budget's spec: at most one of MinAvailable
// and MaxUnavailable is set.
type PodDisruptionBudgetSpec struct {
	MinAvailable *IntOrString `json:"minAvailable,omitempty"`
	// Selector picks the budget's pods in its namespace; nil selects
	// none, an empty selector every pod.
	Selector                   *LabelSelector `json:"selector,omitempty"`
	MaxUnavailable             *IntOrString   `json:"maxUnavailable,omitempty"`
	UnhealthyPodEvictionPolicy string         `json:"unhealthyPodEvictionPolicy,omitempty"`
}

// PodDisruptionBudgetStatus is a budget's status, written whole by the
// disruption controller; the eviction handler of the API server takes
// disruptions from DisruptionsAllowed and records them in DisruptedPods.
type PodDisruptionBudgetStatus struct {
	ObservedGeneration int64                `json:"observedGeneration,omitempty"`
	DisruptedPods      map[string]meta.Time `json:"disruptedPods,omitempty"`
	DisruptionsAllowed int32                `json:"disruptionsAllowed"`
	CurrentHealthy     int32                `json:"currentHealthy"`
	DesiredHealthy     int32                `json:"desiredHealthy"`
	ExpectedPods       int32                `json:"expectedPods"`
	Conditions         []Condition          `json:"conditions,omitempty"`
}

// The DisruptionAllowed condition of a budget and its reasons.
const (
	DisruptionAllowedCondition = "DisruptionAllowed"
	SyncFailedReason           = "SyncFailed"
	SufficientPodsReason       = "SufficientPods"
	InsufficientPodsReason     = "InsufficientPods"
)

// Condition is the condition type of the newer APIs (metav1.Condition):
// reason and lastTransitionTime are always written, message too even
// when empty.
type Condition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
	LastTransitionTime meta.Time       `json:"lastTransitionTime"`
	Reason             string          `json:"reason"`
	Message            string          `json:"message"`
}

// FindCondition returns the condition of type t in conds, or nil; it
// points into conds.
func FindCondition(conds []Condition, t string) *Condition {
	return findCondition(conds, func(c *Condition) bool { return c.Type == t })
}

// SetCondition sets c in conds, as the API machinery's helper does: a new
// condition, or one whose status changes, gets its transition time (now,
// unless c carries one); reason, message and observedGeneration are
// always taken from c.
func SetCondition(conds []Condition, c Condition, now time.Time) []Condition {
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = meta.NewTime(now)
	}
	cur := FindCondition(conds, c.Type)
	if cur == nil {
		return append(conds, c)
	}
	if cur.Status != c.Status {
		cur.Status = c.Status
		cur.LastTransitionTime = c.LastTransitionTime
	}
	cur.Reason, cur.Message, cur.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
	return conds
}

// GoString prints s as the API's generated String method prints a
// *metav1.LabelSelector, the form the real controllers put in event
// messages: "&LabelSelector{MatchLabels:map[string]string{app: web,},...}".
func (s *LabelSelector) GoString() string {
	if s == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		fmt.Fprintf(&b, "%s: %s,", k, s.MatchLabels[k])
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, e := range s.MatchExpressions {
		fmt.Fprintf(&b, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:%v,},", e.Key, e.Operator, e.Values)
	}
	b.WriteString("},}")
	return b.String()
}
