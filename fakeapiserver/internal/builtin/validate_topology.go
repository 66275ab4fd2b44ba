package builtin

import (
	"maps"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// allowedTopologies checks a StorageClass's allowed topologies: each
// term's expressions have a label key (once per term) and at least one
// value, none twice; a term may not repeat an earlier one, with its
// values in any order. An empty term counts as a repeat: the real
// server compares each term with a list that starts with as many empty
// entries as there are terms, and reports a term once however many
// entries it matches.
func (v *validator) allowedTopologies(obj *jsonv.Value) {
	var seen []map[string]map[string]bool
	for i, term := range items(obj, "allowedTopologies") {
		p := index("allowedTopologies", i)
		exprs := map[string]map[string]bool{}
		for j, req := range items(term, "matchLabelExpressions") {
			rp := index(p+".matchLabelExpressions", j)
			values := stringsOf(req, "values")
			if len(values) == 0 {
				v.required(rp+".values", "")
			}
			set := map[string]bool{}
			for k, val := range values {
				if set[val] {
					v.duplicate(index(rp+".values", k), val)
				}
				set[val] = true
			}
			key := str(req, "key")
			v.problems(rp+".key", key, qualifiedNameProblems(key))
			if _, ok := exprs[key]; ok {
				v.duplicate(rp+".key", key)
			}
			exprs[key] = set
		}
		repeat := len(exprs) == 0
		for _, t := range seen {
			repeat = repeat || maps.EqualFunc(exprs, t, maps.Equal)
		}
		if repeat {
			v.duplicate(p+".matchLabelExpressions", "")
		}
		seen = append(seen, exprs)
	}
}
