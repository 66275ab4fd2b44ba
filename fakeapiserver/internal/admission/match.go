package admission

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Equivalent is another version of the resource a request is for, which
// a rule written for that version matches under matchPolicy Equivalent.
type Equivalent struct {
	Version, Kind string
}

// matched is what a policy matched: the version (and kind) its
// expressions see the object at.
type matched struct {
	version, kind string
}

// errNoSuchNamespace is the namespace selector's refusal when a
// request's namespace does not exist.
type errNoSuchNamespace string

func (e errNoSuchNamespace) Error() string { return fmt.Sprintf("namespaces %q not found", string(e)) }

// matches decides whether constraints m select the request, as the real
// server's matcher: the namespace and object selectors, the excluded
// rules, then the resource rules (any of them; none means all), trying
// equivalent versions when matchPolicy is Equivalent.
func (d *Dispatcher) matches(a *Attributes, m *matchResources) (bool, matched, error) {
	nsOK, nsErr := d.namespaceMatches(a, m.NamespaceSelector)
	if !nsOK && nsErr == nil {
		return false, matched{}, nil
	}
	if !objectMatches(a, m.ObjectSelector) {
		return false, matched{}, nil
	}
	if ok, _ := d.rulesMatch(a, m.ExcludeResourceRules, m.MatchPolicy); ok {
		return false, matched{}, nil
	}
	at := matched{version: a.Version, kind: a.Kind}
	if len(m.ResourceRules) > 0 {
		ok, got := d.rulesMatch(a, m.ResourceRules, m.MatchPolicy)
		if !ok {
			return false, matched{}, nil
		}
		at = got
	}
	if nsErr != nil {
		return false, matched{}, nsErr
	}
	return true, at, nil
}

// rulesMatch tries the rules at the request's version, then (under
// Equivalent) at the resource's other versions.
func (d *Dispatcher) rulesMatch(a *Attributes, rules []namedRule, policy *string) (bool, matched) {
	for _, r := range rules {
		if ruleMatches(r, a, a.Version) {
			return true, matched{version: a.Version, kind: a.Kind}
		}
	}
	if policy == nil || *policy == "Exact" || d.src == nil {
		return false, matched{}
	}
	for _, eq := range d.src.Equivalents(a.Group, a.Resource, a.Version) {
		for _, r := range rules {
			if ruleMatches(r, a, eq.Version) {
				return true, matched{version: eq.Version, kind: eq.Kind}
			}
		}
	}
	return false, matched{}
}

// ruleMatches is one rule against the request at version.
func ruleMatches(r namedRule, a *Attributes, version string) bool {
	if !scopeMatches(r.Scope, a) || !wildOr(r.APIGroups, a.Group) || !wildOr(r.APIVersions, version) {
		return false
	}
	if !slices.Contains(r.Operations, "*") && !slices.Contains(r.Operations, a.Operation) {
		return false
	}
	found := false
	for _, res := range r.Resources {
		name, sub, _ := strings.Cut(res, "/")
		if (name == "*" || name == a.Resource) && (sub == "*" || sub == a.Subresource) {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.Name)
}

func wildOr(items []string, s string) bool {
	return slices.Contains(items, "*") || slices.Contains(items, s)
}

func scopeMatches(scope *string, a *Attributes) bool {
	isNamespaces := a.Group == "" && a.Resource == "namespaces"
	if scope == nil {
		return true
	}
	switch *scope {
	case "*":
		return true
	case "Namespaced":
		return !isNamespaces && a.Namespace != ""
	case "Cluster":
		return isNamespaces || a.Namespace == ""
	}
	return false
}

// namespaceMatches applies a namespace selector: cluster-scoped requests
// (other than for namespaces) always match; a namespace's own create or
// update is matched by its new labels.
func (d *Dispatcher) namespaceMatches(a *Attributes, sel *labelSelector) (bool, error) {
	isNamespaces := a.Group == "" && a.Resource == "namespaces"
	if a.Namespace == "" && !isNamespaces {
		return true, nil
	}
	if sel == nil || sel.empty() {
		return true, nil
	}
	s, ok := sel.labels()
	if !ok {
		return false, errors.New("invalid namespace selector")
	}
	var labels map[string]string
	if isNamespaces && a.Subresource == "" && (a.Operation == "CREATE" || a.Operation == "UPDATE") {
		labels = labelsOf(a.Object)
	} else {
		name := a.Namespace
		if isNamespaces && name == "" {
			name = a.Name
		}
		ns := d.namespace(name)
		if ns == nil {
			return false, errNoSuchNamespace(name)
		}
		labels = labelsOf(ns)
	}
	return s.Matches(labels), nil
}

// objectMatches applies an object selector to the new or the old object.
func objectMatches(a *Attributes, sel *labelSelector) bool {
	if sel == nil || sel.empty() {
		return true
	}
	s, ok := sel.labels()
	if !ok {
		return false
	}
	for _, o := range []*jsonv.Value{a.Object, a.OldObject} {
		if o != nil && s.Matches(labelsOf(o)) {
			return true
		}
	}
	return false
}
