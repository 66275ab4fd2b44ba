package builtin

import (
	"slices"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// The counters of a ResourceSlice (its shared counter sets and the
// counters its devices consume) and the binding conditions of its
// devices, as the real validator checks them.

// Limits of the real API on counters and binding conditions.
const (
	maxCounterSets             = 8
	maxCountersPerSet          = 32
	maxConsumptionsPerDevice   = 2
	maxCountersPerConsumption  = 32
	maxBindingConditions       = 4
	maxBindingFailureCondition = 4
)

// arrayLen is the length of the array under key (0 when it is none).
func arrayLen(obj *jsonv.Value, key string) int {
	if a := obj.Get(key); a != nil && a.Kind == jsonv.Array {
		return len(a.Arr)
	}
	return 0
}

// sharedCounters checks a slice's counter sets: at most eight, each with
// a unique name and counters, named as DNS labels.
func (v *validator) sharedCounters(p string, spec *jsonv.Value) {
	v.counterSets(p, spec, "sharedCounters", "name", maxCounterSets, maxCountersPerSet)
}

// consumesCounters checks the counters a device consumes: at most two
// entries, each naming a unique counter set and its counters.
func (v *validator) consumesCounters(p string, d *jsonv.Value) {
	v.counterSets(p, d, "consumesCounters", "counterSet", maxConsumptionsPerDevice, maxCountersPerConsumption)
}

// counterSets checks obj's list key of counter sets: at most most
// entries, each with a unique name (under nameKey, a DNS label) and at
// most perSet counters.
func (v *validator) counterSets(p string, obj *jsonv.Value, key, nameKey string, most, perSet int) {
	if n := arrayLen(obj, key); n > most {
		v.tooMany(p, n, most)
		return
	}
	seen := map[string]bool{}
	for i, set := range items(obj, key) {
		sp := index(p, i)
		name := str(set, nameKey)
		if name == "" {
			v.required(sp+"."+nameKey, "")
		} else {
			v.problems(sp+"."+nameKey, name, validation.ContentLabelProblems(name))
		}
		v.counters(sp+".counters", set, perSet)
		if seen[name] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: sp, Value: counterItemJSON(set, nameKey)})
		}
		seen[name] = true
	}
}

// counters checks the counters map of a set or a consumption: required,
// at most limit entries, each named as a DNS label (reported on the map).
func (v *validator) counters(p string, obj *jsonv.Value, limit int) {
	m := present(obj, "counters")
	switch {
	case m == nil || len(m.Obj) == 0:
		v.required(p, "")
	case len(m.Obj) > limit:
		v.tooMany(p, len(m.Obj), limit)
	default:
		for _, c := range m.Obj {
			v.problems(p, c.Key, validation.ContentLabelProblems(c.Key))
		}
	}
}

// counterItemJSON shows a counter set or consumption as the real server
// does in a duplicate: its name member, then its counters (when any) by
// name, each value in canonical form.
func counterItemJSON(item *jsonv.Value, nameKey string) string {
	out := jsonv.NewObject()
	out.Set(nameKey, jsonv.NewString(str(item, nameKey)))
	if m := present(item, "counters"); m != nil && len(m.Obj) > 0 {
		names := make([]string, 0, len(m.Obj))
		for _, c := range m.Obj {
			names = append(names, c.Key)
		}
		slices.Sort(names)
		counters := jsonv.NewObject()
		for _, name := range names {
			c := jsonv.NewObject()
			shown := "0"
			if q := m.Get(name).Get("value"); q != nil {
				shown = shownQuantity(q)
			}
			c.Set("value", jsonv.NewString(shown))
			counters.Set(name, c)
		}
		out.Set("counters", counters)
	}
	return string(jsonv.Marshal(out))
}

// bindingConditions checks a device's binding conditions and binding
// failure conditions: at most four of each, qualified names, no
// duplicates, no overlap, and neither without the other.
func (v *validator) bindingConditions(p string, d *jsonv.Value) {
	conds, failures := stringsOf(d, "bindingConditions"), stringsOf(d, "bindingFailureConditions")
	v.conditionNames(p+".bindingConditions", conds, maxBindingConditions)
	v.conditionNames(p+".bindingFailureConditions", failures, maxBindingFailureCondition)
	seen := map[string]bool{}
	for i, c := range conds {
		if seen[c] {
			v.duplicate(index(p+".bindingConditions", i), c)
		}
		seen[c] = true
	}
	seenFailure := map[string]bool{}
	for i, c := range failures {
		if seenFailure[c] {
			v.duplicate(index(p+".bindingFailureConditions", i), c)
		}
		seenFailure[c] = true
		if seen[c] {
			v.invalid(index(p+".bindingFailureConditions", i), c, "bindingFailureConditions must not overlap with bindingConditions")
		}
	}
	if len(conds) == 0 && len(failures) > 0 {
		v.invalidRaw(p+".bindingConditions", shownArray(d, "bindingConditions"), "bindingConditions are required to use bindingFailureConditions")
	}
	if len(failures) == 0 && len(conds) > 0 {
		v.invalidRaw(p+".bindingFailureConditions", shownArray(d, "bindingFailureConditions"), "bindingFailureConditions are required to use bindingConditions")
	}
}

// conditionNames checks a list of condition names: at most limit (then
// nothing more), each a qualified name.
func (v *validator) conditionNames(p string, names []string, limit int) {
	if len(names) > limit {
		v.tooMany(p, len(names), limit)
		return
	}
	for i, n := range names {
		v.problems(index(p, i), n, qualifiedNameProblems(n))
	}
}

// shownArray shows an empty list as the real server does: null when
// absent, [] when given empty.
func shownArray(obj *jsonv.Value, key string) string {
	if a := obj.Get(key); a != nil && a.Kind == jsonv.Array {
		return "[]"
	}
	return "null"
}
