package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// Where a pod may run: node affinity, pod affinity and anti-affinity,
// and topology spread constraints, as the real pod validator checks them.

// affinity checks a pod's affinity.
func (v *validator) affinity(p string, a *jsonv.Value) {
	if a == nil {
		return
	}
	if na := present(a, "nodeAffinity"); na != nil {
		np := p + ".nodeAffinity"
		const req = "requiredDuringSchedulingIgnoredDuringExecution"
		if sel := present(na, req); sel != nil {
			terms := items(sel, "nodeSelectorTerms")
			tp := np + "." + req + ".nodeSelectorTerms"
			if len(terms) == 0 {
				v.required(tp, "must have at least one node selector term")
			}
			for i, t := range terms {
				v.nodeSelectorTerm(index(tp, i), t, true)
			}
		}
		for i, t := range items(na, "preferredDuringSchedulingIgnoredDuringExecution") {
			tp := index(np+".preferredDuringSchedulingIgnoredDuringExecution", i)
			v.weight(tp+".weight", t)
			// Label values are not checked in preferred terms.
			v.nodeSelectorTerm(tp+".preference", sub(t, "preference"), false)
		}
	}
	for _, k := range []string{"podAffinity", "podAntiAffinity"} {
		pa := present(a, k)
		if pa == nil {
			continue
		}
		pp := p + "." + k
		for i, t := range items(pa, "requiredDuringSchedulingIgnoredDuringExecution") {
			v.podAffinityTerm(index(pp+".requiredDuringSchedulingIgnoredDuringExecution", i), t)
		}
		for i, t := range items(pa, "preferredDuringSchedulingIgnoredDuringExecution") {
			tp := index(pp+".preferredDuringSchedulingIgnoredDuringExecution", i)
			v.weight(tp+".weight", t)
			v.podAffinityTerm(tp+".podAffinityTerm", sub(t, "podAffinityTerm"))
		}
	}
}

// weight checks a preferred term's weight: 1 to 100.
func (v *validator) weight(field string, t *jsonv.Value) {
	if n, _ := integer(t, "weight"); n <= 0 || n > 100 {
		v.invalidRaw(field, strconv.FormatInt(n, 10), "must be in the range 1-100")
	}
}

// nodeSelectorTerm checks a node selector term's label expressions (their
// values only when checkValues) and field expressions.
func (v *validator) nodeSelectorTerm(p string, t *jsonv.Value, checkValues bool) {
	for i, e := range items(t, "matchExpressions") {
		ep := index(p+".matchExpressions", i)
		values := stringsOf(e, "values")
		switch op := str(e, "operator"); op {
		case "In", "NotIn":
			if len(values) == 0 {
				v.required(ep+".values", "must be specified when `operator` is 'In' or 'NotIn'")
			}
		case "Exists", "DoesNotExist":
			if len(values) > 0 {
				v.forbidden(ep+".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
			}
		case "Gt", "Lt":
			if len(values) != 1 {
				v.required(ep+".values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
			}
		default:
			v.invalid(ep+".operator", op, "not a valid selector operator")
		}
		k := str(e, "key")
		v.problems(ep+".key", k, qualifiedNameProblems(k))
		if checkValues {
			for j, val := range values {
				v.problems(index(ep+".values", j), val, labelValueProblems(val))
			}
		}
	}
	for i, e := range items(t, "matchFields") {
		ep := index(p+".matchFields", i)
		values := stringsOf(e, "values")
		switch op := str(e, "operator"); op {
		case "In", "NotIn":
			if len(values) != 1 {
				v.required(ep+".values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
			}
		default:
			v.invalid(ep+".operator", op, "not a valid selector operator")
		}
		// metadata.name is the one field a node selector may match.
		if k := str(e, "key"); k != "metadata.name" {
			v.invalid(ep+".key", k, "not a valid field selector key")
			continue
		}
		for j, val := range values {
			v.problems(index(ep+".values", j), val, validation.SubdomainProblems(val))
		}
	}
}

// podAffinityTerm checks a pod affinity term: its selectors, namespaces,
// label keys and topology key.
func (v *validator) podAffinityTerm(p string, t *jsonv.Value) {
	sel := readSelector(t, "labelSelector")
	v.selector(p+".labelSelector", sel)
	v.selector(p+".namespaceSelector", readSelector(t, "namespaceSelector"))
	for _, ns := range stringsOf(t, "namespaces") {
		v.problems(p+".namespace", ns, validation.LabelProblems(ns))
	}
	match, mismatch := stringsOf(t, "matchLabelKeys"), stringsOf(t, "mismatchLabelKeys")
	v.matchLabelKeys(p, match, mismatch, sel)
	tk := str(t, "topologyKey")
	if tk == "" {
		v.required(p+".topologyKey", "can not be empty")
	}
	v.problems(p+".topologyKey", tk, qualifiedNameProblems(tk))
}

// matchLabelKeys checks the label keys a term or constraint merges into
// its selector: qualified names, allowed only beside a selector, not
// already in the selector, and not both matched and mismatched.
func (v *validator) matchLabelKeys(p string, match, mismatch []string, sel *labelSelector) {
	for _, l := range []struct {
		field string
		keys  []string
	}{{p + ".matchLabelKeys", match}, {p + ".mismatchLabelKeys", mismatch}} {
		if len(l.keys) == 0 {
			continue
		}
		if sel == nil {
			v.forbidden(l.field, "must not be specified when labelSelector is not set")
			continue
		}
		for i, k := range l.keys {
			v.problems(index(l.field, i), k, qualifiedNameProblems(k))
		}
	}
	if sel != nil {
		// The registry has merged each key into the selector's
		// expressions; a key the selector held before is a duplicate.
		at := map[string]int{}
		for i, k := range match {
			at[k] = i
		}
		keys := map[string]bool{}
		for k := range sel.matchLabels {
			keys[k] = true
		}
		for _, e := range sel.exprs {
			if i, ok := at[e.key]; ok && keys[e.key] {
				v.invalid(index(p, i), e.key, "exists in both matchLabelKeys and labelSelector")
			}
			keys[e.key] = true
		}
	}
	for i, k := range match {
		if contains(mismatch, k) {
			v.invalid(index(p+".matchLabelKeys", i), k, "exists in both matchLabelKeys and mismatchLabelKeys")
		}
	}
}

// topologySpread checks a pod's topology spread constraints.
func (v *validator) topologySpread(p string, spec *jsonv.Value) {
	list := items(spec, "topologySpreadConstraints")
	for i, c := range list {
		cp := index(p, i)
		if n, _ := integer(c, "maxSkew"); n <= 0 {
			v.invalidRaw(cp+".maxSkew", strconv.FormatInt(n, 10), "must be greater than zero")
		}
		tk, when := str(c, "topologyKey"), str(c, "whenUnsatisfiable")
		if tk == "" {
			v.required(cp+".topologyKey", "can not be empty")
		}
		if when != "DoNotSchedule" && when != "ScheduleAnyway" {
			v.notSupported(cp+".whenUnsatisfiable", when, "DoNotSchedule", "ScheduleAnyway")
		}
		for _, later := range list[i+1:] {
			if str(later, "topologyKey") == tk && str(later, "whenUnsatisfiable") == when {
				v.duplicate(cp+".{topologyKey, whenUnsatisfiable}", "{"+tk+", "+when+"}")
				break
			}
		}
		if n, ok := integer(c, "minDomains"); ok {
			if n <= 0 {
				v.invalidRaw(cp+".minDomains", strconv.FormatInt(n, 10), "must be greater than zero")
			}
			if when != "DoNotSchedule" {
				v.invalidRaw(cp+".minDomains", strconv.FormatInt(n, 10), "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "+when)
			}
		}
		for _, k := range []string{"nodeAffinityPolicy", "nodeTaintsPolicy"} {
			if pol := c.Get(k); pol != nil && pol.Kind == jsonv.String && pol.Str != "Honor" && pol.Str != "Ignore" {
				v.notSupported(cp+"."+k, pol.Str, "Honor", "Ignore")
			}
		}
		sel := readSelector(c, "labelSelector")
		v.matchLabelKeys(cp, stringsOf(c, "matchLabelKeys"), nil, sel)
		v.selector(cp+".labelSelector", sel)
	}
}
