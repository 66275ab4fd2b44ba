package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// labelSelector is a metav1.LabelSelector read from a document.
type labelSelector struct {
	matchLabels map[string]string
	exprs       []selectorExpr
}

type selectorExpr struct {
	key, operator string
	values        []string
}

// readSelector reads the selector under key; nil when it is absent.
func readSelector(obj *jsonv.Value, k string) *labelSelector {
	s := present(obj, k)
	if s == nil {
		return nil
	}
	sel := &labelSelector{matchLabels: stringMap(s, "matchLabels")}
	each(s, "matchExpressions", func(e *jsonv.Value) {
		ex := selectorExpr{key: str(e, "key"), operator: str(e, "operator")}
		if vals := e.Get("values"); vals != nil && vals.Kind == jsonv.Array {
			for _, x := range vals.Arr {
				ex.values = append(ex.values, x.Str)
			}
		}
		sel.exprs = append(sel.exprs, ex)
	})
	return sel
}

// empty reports a selector with no requirement (it selects everything).
func (s *labelSelector) empty() bool {
	return s != nil && len(s.matchLabels) == 0 && len(s.exprs) == 0
}

// matches reports whether labels satisfy the selector. A nil selector
// selects nothing, as the real server converts it.
func (s *labelSelector) matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, want := range s.matchLabels {
		if got, ok := labels[k]; !ok || got != want {
			return false
		}
	}
	for _, e := range s.exprs {
		got, ok := labels[e.key]
		switch e.operator {
		case "In":
			if !ok || !contains(e.values, got) {
				return false
			}
		case "NotIn":
			if ok && contains(e.values, got) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// selector checks a label selector's labels and expressions.
func (v *validator) selector(field string, s *labelSelector) {
	if s == nil {
		return
	}
	v.labels(field+".matchLabels", s.matchLabels)
	for i, e := range s.exprs {
		f := index(field+".matchExpressions", i)
		switch e.operator {
		case "In", "NotIn":
			if len(e.values) == 0 {
				v.required(f+".values", "must be specified when `operator` is 'In' or 'NotIn'")
			}
		case "Exists", "DoesNotExist":
			if len(e.values) > 0 {
				v.forbidden(f+".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
			}
		default:
			v.invalid(f+".operator", e.operator, "not a valid selector operator")
		}
		v.problems(f+".key", e.key, qualifiedNameProblems(e.key))
		for j, val := range e.values {
			v.problems(index(f+".values", j), val, labelValueProblems(val))
		}
	}
}
