package cel

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
	"github.com/kubecache/kubecache/meta"
)

// Check runs the rules against a custom resource's top-level members (all
// but kind, apiVersion and metadata), with id the root's apiVersion, kind
// and metadata (name and generateName) as rules see them; old holds the stored object's members on update, nil
// on create. A transition rule (one that reads
// oldSelf) runs only where the old object has a value, unless it sets
// optionalOldSelf; a value equal to the old one is not checked again. All
// the rules of one object share the real server's cost budget: once it
// is spent, one error says so and no further rule runs.
func (r *Rules) Check(id, rest, old []jsonv.Member) []apistatus.FieldError {
	if r == nil {
		return nil
	}
	ch := &checker{budget: runtimeBudget}
	nv := jsonv.Value{Kind: jsonv.Object, Obj: append(slices.Clip(id), rest...)}
	var ov *jsonv.Value
	if old != nil {
		ov = &jsonv.Value{Kind: jsonv.Object, Obj: append(slices.Clip(id), old...)}
	}
	ch.node(r.root, &nv, ov, "")
	return ch.errs
}

type checker struct {
	errs      []apistatus.FieldError
	budget    int64
	exhausted bool
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (ch *checker) node(n *node, v, old *jsonv.Value, path string) {
	if n == nil || !n.any || ch.exhausted || v.Kind == jsonv.Null {
		return
	}
	if old != nil && jsonv.Equal(*v, *old) {
		return
	}
	if len(n.rules) > 0 {
		self := native(*v, n.schema)
		var oldSelf any
		if old != nil {
			oldSelf = native(*old, n.schema)
		}
		for _, cr := range n.rules {
			ch.run(cr, n.schema, self, oldSelf, old != nil, v, path)
			if ch.exhausted {
				return
			}
		}
	}
	switch v.Kind {
	case jsonv.Object:
		for i := range v.Obj {
			m := &v.Obj[i]
			child := n.props[m.Key]
			if _, declared := n.schema.Properties[m.Key]; !declared {
				child = n.values
			}
			var om *jsonv.Value
			if old != nil && old.Kind == jsonv.Object {
				om = old.Get(m.Key)
			}
			ch.node(child, &m.Value, om, join(path, m.Key))
		}
	case jsonv.Array:
		for i := range v.Arr {
			ch.node(n.items, &v.Arr[i], structural.OldItem(v, old, i, n.schema), path+"["+strconv.Itoa(i)+"]")
		}
	}
}

// rootField is how the real server names the field of a failure at the
// root of the object: its empty path, printed.
const rootField = "<nil>"

// run evaluates one rule on one value and records its failure.
func (ch *checker) run(cr compiled, s *structural.Schema, self, oldSelf any, hasOld bool, v *jsonv.Value, path string) {
	if cr.transition && !hasOld && !cr.optional {
		return
	}
	act := map[string]any{"self": self}
	switch {
	case cr.optional && hasOld:
		act["oldSelf"] = types.OptionalOf(types.DefaultTypeAdapter.NativeToValue(oldSelf))
	case cr.optional:
		act["oldSelf"] = types.OptionalNone
	case hasOld:
		act["oldSelf"] = oldSelf
	}
	out, det, err := cr.prog.Eval(act)
	if !ch.spend(det, s, path) {
		return
	}
	typeName := strconv.Quote(schemaType(s))
	if err != nil {
		what := cr.rule.Message
		if what == "" {
			what = cr.rule.Rule
		}
		ch.errs = append(ch.errs, apistatus.FieldInvalidRaw(cmp.Or(path, rootField), typeName, err.Error()+" evaluating rule: "+what))
		return
	}
	if ok, isBool := out.Value().(bool); !isBool || ok {
		return
	}
	msg := cr.rule.Message
	if msg == "" {
		msg = "failed rule: " + cr.rule.Rule
	}
	if cr.message != nil {
		mout, mdet, err := cr.message.Eval(act)
		if !ch.spend(mdet, s, path) {
			return
		}
		if str, ok := mout.Value().(string); err == nil && ok && strings.TrimSpace(str) != "" {
			msg = str
		}
	}
	field := cmp.Or(path, rootField)
	if fp := cr.rule.FieldPath; fp != "" {
		field = strings.TrimPrefix(path+fp, ".")
	}
	switch cr.rule.Reason {
	case string(meta.CauseFieldValueForbidden):
		ch.errs = append(ch.errs, apistatus.FieldForbidden(field, msg))
	case string(meta.CauseFieldValueRequired):
		ch.errs = append(ch.errs, apistatus.FieldRequired(field, msg))
	case string(meta.CauseFieldValueDuplicate):
		ch.errs = append(ch.errs, apistatus.FieldError{Type: meta.CauseFieldValueDuplicate, Field: field, Detail: msg})
	default:
		ch.errs = append(ch.errs, apistatus.FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: shownValue(v, cr.rule.FieldPath), Detail: msg})
	}
}

// spend takes an evaluation's cost from the object's budget; false means
// the budget ran out (recorded once, and nothing more runs).
func (ch *checker) spend(det *cel.EvalDetails, s *structural.Schema, path string) bool {
	if det == nil {
		return true
	}
	if c := det.ActualCost(); c != nil {
		ch.budget -= int64(*c)
	}
	if ch.budget < 0 {
		ch.exhausted = true
		ch.errs = append(ch.errs, apistatus.FieldInvalidRaw(path, strconv.Quote(schemaType(s)), "validation failed due to running out of cost budget, no further validation rules will be run"))
		return false
	}
	return true
}

// shownValue is the value a failed rule's message shows: a scalar as it
// is, nothing for objects and lists (and for a rule that names another
// field).
func shownValue(v *jsonv.Value, fieldPath string) string {
	if fieldPath != "" {
		return ""
	}
	switch v.Kind {
	case jsonv.String:
		return strconv.Quote(v.Str)
	case jsonv.Number, jsonv.Bool:
		return string(jsonv.Marshal(*v))
	}
	return ""
}

func schemaType(s *structural.Schema) string {
	if s == nil || s.Type == "" {
		return "object"
	}
	return s.Type
}
