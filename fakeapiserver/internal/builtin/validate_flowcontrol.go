package builtin

import (
	"math"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of API priority and fairness: FlowSchemas and
// PriorityLevelConfigurations.

// flowVerbs are the verbs a flow schema rule may name besides "*".
var flowVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}

func validateFlowSchema(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	{
		n, _ := integer(spec, "matchingPrecedence")
		shown := strconv.FormatInt(n, 10)
		switch {
		case n <= 0:
			v.invalidRaw("spec.matchingPrecedence", shown, "must be a positive value")
		case n > 10000:
			v.invalidRaw("spec.matchingPrecedence", shown, "must not be greater than 10000")
		case n == 1 && m.Name != "exempt":
			v.invalidRaw("spec.matchingPrecedence", shown, "only the schema named 'exempt' may have matchingPrecedence 1")
		}
	}
	if dm := present(spec, "distinguisherMethod"); dm != nil {
		if t := str(dm, "type"); t != "ByNamespace" && t != "ByUser" {
			v.notSupportedRaw("spec.distinguisherMethod.type", `{"Type":`+strconv.Quote(t)+`}`, "ByNamespace", "ByUser")
		}
	}
	if name := str(sub(spec, "priorityLevelConfiguration"), "name"); name != "" {
		v.problems("spec.priorityLevelConfiguration.name", name, validation.SubdomainProblems(name))
	} else {
		v.required("spec.priorityLevelConfiguration.name", "must reference a priority level")
	}
	for i, r := range items(spec, "rules") {
		v.flowRule(index("spec.rules", i), r)
	}
}

// flowRule checks one rule of a flow schema: its subjects and its
// resource and non-resource rules.
func (v *validator) flowRule(p string, r *jsonv.Value) {
	subjects := items(r, "subjects")
	if len(subjects) == 0 {
		v.required(p+".subjects", "subjects must contain at least one value")
	}
	for i, s := range subjects {
		v.flowSubject(index(p+".subjects", i), s)
	}
	resourceRules, nonResourceRules := items(r, "resourceRules"), items(r, "nonResourceRules")
	if len(resourceRules) == 0 && len(nonResourceRules) == 0 {
		v.required(p, "at least one of resourceRules and nonResourceRules has to be non-empty")
	}
	for i, rr := range resourceRules {
		rp := index(p+".resourceRules", i)
		v.flowVerbs(rp, rr)
		v.wildcardList(rp+".apiGroups", stringsOf(rr, "apiGroups"), "resource rules must supply at least one api group", "if '*' is present, must not specify other api groups")
		v.wildcardList(rp+".resources", stringsOf(rr, "resources"), "resource rules must supply at least one resource", "if '*' is present, must not specify other resources")
		namespaces := stringsOf(rr, "namespaces")
		cluster := false
		if c := rr.Get("clusterScope"); c != nil && c.Kind == jsonv.Bool {
			cluster = c.B
		}
		switch {
		case len(namespaces) == 0 && !cluster:
			v.required(rp+".namespaces", "resource rules that are not cluster scoped must supply at least one namespace")
		case slices.Contains(namespaces, "*"):
			if len(namespaces) > 1 {
				v.add(invalidList(rp+".namespaces", namespaces, "if '*' is present, must not specify other namespaces"))
			}
		default:
			for j, ns := range namespaces {
				for _, problem := range validation.LabelProblems(ns) {
					v.invalid(index(rp+".namespaces", j), ns, "each member of this list must be '*' or a DNS-1123 label; "+problem)
				}
			}
		}
	}
	for i, nr := range nonResourceRules {
		np := index(p+".nonResourceRules", i)
		v.flowVerbs(np, nr)
		urls := stringsOf(nr, "nonResourceURLs")
		switch {
		case len(urls) == 0:
			v.required(np+".nonResourceURLs", "nonResourceURLs must contain at least one value")
		case slices.Contains(urls, "*") && len(urls) > 1:
			v.add(invalidList(np+".nonResourceURLs", urls, "if '*' is present, must not specify other non-resource URLs"))
		}
	}
}

// flowVerbs checks a rule's verbs: "*" alone or known verbs.
func (v *validator) flowVerbs(p string, r *jsonv.Value) {
	verbs := stringsOf(r, "verbs")
	switch {
	case len(verbs) == 0:
		v.required(p+".verbs", "verbs must contain at least one value")
	case slices.Contains(verbs, "*"):
		if len(verbs) > 1 {
			v.add(invalidList(p+".verbs", verbs, "if '*' is present, must not specify other verbs"))
		}
	default:
		for _, verb := range verbs {
			if !slices.Contains(flowVerbs, verb) {
				v.notSupportedRaw(p+".verbs", shownList(verbs), flowVerbs...)
				break
			}
		}
	}
}

// wildcardList checks a list that must be non-empty and may hold "*"
// only alone.
func (v *validator) wildcardList(p string, list []string, required, wildcard string) {
	switch {
	case len(list) == 0:
		v.required(p, required)
	case len(list) > 1 && slices.Contains(list, "*"):
		v.add(invalidList(p, list, wildcard))
	}
}

// flowSubject checks one subject: a User, Group or ServiceAccount with
// the member of its kind only.
func (v *validator) flowSubject(p string, s *jsonv.Value) {
	kinds := map[string]string{"ServiceAccount": "serviceAccount", "User": "user", "Group": "group"}
	kind := str(s, "kind")
	member, ok := kinds[kind]
	if !ok {
		v.notSupported(p+".kind", kind, "Group", "ServiceAccount", "User")
		return
	}
	m := present(s, member)
	switch {
	case m == nil:
		v.required(p+"."+member, member+" is required when subject kind is '"+kind+"'")
	case kind == "ServiceAccount":
		name := str(m, "name")
		if name == "" {
			v.required(p+".serviceAccount.name", "")
		} else if name != "*" {
			v.problems(p+".serviceAccount.name", name, validation.SubdomainProblems(name))
		}
		if ns := str(m, "namespace"); ns == "" {
			v.required(p+".serviceAccount.namespace", "must specify namespace for service account")
		} else {
			v.problems(p+".serviceAccount.namespace", ns, validation.LabelProblems(ns))
		}
	default:
		if str(m, "name") == "" {
			v.required(p+"."+member+".name", "")
		}
	}
	for _, other := range []struct{ member, kind string }{{"serviceAccount", "ServiceAccount"}, {"user", "User"}, {"group", "Group"}} {
		if other.member != member && present(s, other.member) != nil {
			v.forbidden(p+"."+other.member, other.member+" is forbidden when subject kind is not '"+other.kind+"'")
		}
	}
}

func validatePriorityLevel(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	typ := str(spec, "type")
	if (m.Name == "exempt") != (typ == "Exempt") {
		v.invalid("spec.type", typ, "must be 'Exempt' if and only if `name` is 'exempt'")
	}
	limited, exempt := present(spec, "limited"), present(spec, "exempt")
	switch typ {
	case "Exempt", "Limited":
	case "":
		v.required("spec.type", "")
	default:
		v.notSupported("spec.type", typ, "Exempt", "Limited")
	}
	if limited != nil && typ != "Limited" {
		v.forbidden("spec.limited", "")
	}
	if exempt != nil && typ != "Exempt" {
		v.forbidden("spec.exempt", "")
	}
	if typ == "Limited" && limited == nil {
		v.required("spec.limited", "")
	}
	if limited != nil {
		v.limitResponse(sub(limited, "limitResponse"), typ == "Limited")
	}
	if typ == "Limited" && limited != nil {
		if n, ok := integer(limited, "nominalConcurrencyShares"); ok && n < 0 {
			v.invalidRaw("spec.limited.nominalConcurrencyShares", strconv.FormatInt(n, 10), "must be a non-negative integer")
		}
		v.percent(limited, "spec.limited")
		if n, ok := integer(limited, "borrowingLimitPercent"); ok && n < 0 {
			v.invalidRaw("spec.limited.borrowingLimitPercent", strconv.FormatInt(n, 10), "if specified, must be a non-negative integer")
		}
	}
	if typ == "Exempt" && exempt != nil {
		if n, ok := integer(exempt, "nominalConcurrencyShares"); ok && n < 0 {
			v.invalidRaw("spec.exempt.nominalConcurrencyShares", strconv.FormatInt(n, 10), "must be a non-negative integer")
		}
		v.percent(exempt, "spec.exempt")
	}
}

// percent checks a lendablePercent.
func (v *validator) percent(obj *jsonv.Value, p string) {
	if n, ok := integer(obj, "lendablePercent"); ok && (n < 0 || n > 100) {
		v.invalidRaw(p+".lendablePercent", strconv.FormatInt(n, 10), "must be between 0 and 100, inclusive")
	}
}

// limitResponse checks what a limited priority level does with excess
// requests; values only when the level is Limited, as on the real server.
func (v *validator) limitResponse(lr *jsonv.Value, limited bool) {
	const p = "spec.limited.limitResponse"
	queuing := present(lr, "queuing")
	switch t := str(lr, "type"); t {
	case "Reject":
		if queuing != nil {
			v.forbidden(p+".queuing", "")
		}
	case "Queue":
		if queuing == nil {
			v.required(p+".queuing", "")
		} else if limited {
			v.queuing(p+".queuing", queuing)
		}
	case "":
		v.required(p+".type", "")
	default:
		if limited {
			v.notSupported(p+".type", t, "Queue", "Reject")
		}
	}
}

// queuing checks a priority level's queues and shuffle sharding.
func (v *validator) queuing(p string, q *jsonv.Value) {
	show := func(n int64) string { return strconv.FormatInt(n, 10) }
	if n, _ := integer(q, "queueLengthLimit"); n <= 0 {
		v.invalidRaw(p+".queueLengthLimit", show(n), "must be positive")
	}
	queues, _ := integer(q, "queues")
	switch {
	case queues <= 0:
		v.invalidRaw(p+".queues", show(queues), "must be positive")
	case queues > 512:
		v.invalidRaw(p+".queues", show(queues), "must not be greater than 512")
	}
	hand, _ := integer(q, "handSize")
	switch {
	case hand <= 0:
		v.invalidRaw(p+".handSize", show(hand), "must be positive")
	case hand > queues:
		v.invalidRaw(p+".handSize", show(hand), "should not be greater than queues ("+show(queues)+")")
	case math.Ceil(math.Log2(float64(queues))*float64(hand)) > 60:
		v.invalidRaw(p+".handSize", show(hand), "required entropy bits of deckSize "+show(queues)+" and handSize "+show(hand)+" should not be greater than 60")
	}
}
