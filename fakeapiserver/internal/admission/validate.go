package admission

import (
	"strings"

	"github.com/google/cel-go/common/types"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// inputs are the values every expression of one request sees (params
// aside).
type inputs struct {
	a                                    *Attributes
	object, oldObject, request, nsObject any
}

// inputs converts the request for expressions written for version at:
// the objects' apiVersion reads at's (the resources that are equivalent
// convert without other changes).
func (d *Dispatcher) inputs(a *Attributes, at matched) *inputs {
	in := &inputs{a: a}
	in.object = objectAt(a.Object, a.Group, at.version)
	in.oldObject = objectAt(a.OldObject, a.Group, at.version)
	in.request = requestValue(a, at)
	in.nsObject = types.NullValue
	if a.Namespace != "" && !(a.Group == "" && a.Resource == "namespaces") {
		if ns := d.namespace(a.Namespace); ns != nil {
			in.nsObject = toCEL(namespaceObject(ns))
		}
	}
	return in
}

func objectAt(obj *jsonv.Value, group, version string) any {
	if obj == nil {
		return types.NullValue
	}
	v := *obj
	if av := v.Get("apiVersion"); av != nil {
		want := version
		if group != "" {
			want = group + "/" + version
		}
		if av.Str != want {
			v = v.Clone()
			v.Set("apiVersion", jsonv.NewString(want))
		}
	}
	return toCEL(v)
}

// vals are the variables of one evaluation with param (nil: null).
func (in *inputs) vals(cp *compiledPolicy, param *jsonv.Value, withNamespace bool) map[string]any {
	m := map[string]any{
		"object":    in.object,
		"oldObject": in.oldObject,
		"request":   in.request,
	}
	m["namespaceObject"] = types.NullValue
	if withNamespace {
		m["namespaceObject"] = in.nsObject
	}
	if cp.policy.Spec.ParamKind != nil {
		m["params"] = types.NullValue
		if param != nil {
			m["params"] = toCEL(*param)
		}
	}
	addAuthorizer(m, in.a)
	return m
}

// failAction says whether an expression that fails denies (failurePolicy
// Fail, the default) or admits (Ignore).
func failDenies(cp *compiledPolicy) bool {
	fp := cp.policy.Spec.FailurePolicy
	return fp == nil || *fp != "Ignore"
}

// validate evaluates cp for one param and returns its denials (with
// policy and binding left for the caller), as the real validator: match
// conditions first (their own budget, no namespaceObject), then the
// validations and their messages from one budget, then the audit
// annotations from a fresh one.
func (d *Dispatcher) validate(cp *compiledPolicy, in *inputs, param *jsonv.Value) []decision {
	deny := failDenies(cp)
	fail := func(msg string) []decision {
		if !deny {
			return nil
		}
		return []decision{{message: msg}}
	}
	if ok, msg := cp.conditionsHold(in, param); msg != "" {
		return fail(msg)
	} else if !ok {
		return nil
	}
	act := newActivation(cp, in.vals(cp, param, true))
	budget := int64(runtimeBudget)
	results := make([]evalResult, len(cp.validate))
	for i, p := range cp.validate {
		r, err := act.eval(p, &budget)
		if err != nil {
			return fail(err.Error())
		}
		results[i] = r
	}
	messages := make([]evalResult, len(cp.messages))
	var msgErr error
	for i, p := range cp.messages {
		if messages[i], msgErr = act.eval(p, &budget); msgErr != nil {
			break
		}
	}
	var out []decision
	for i, r := range results {
		v := cp.policy.Spec.Validations[i]
		switch {
		case r.err != "":
			if deny {
				out = append(out, decision{message: r.err})
			}
		case msgErr != nil:
			if deny {
				out = append(out, decision{message: "failed messageExpression: " + msgErr.Error()})
			}
		case r.val != types.True:
			dec := decision{reason: meta.ReasonInvalid, message: failureMessage(v, messages[i])}
			if v.Reason != nil {
				dec.reason = meta.StatusReason(*v.Reason)
			}
			out = append(out, dec)
		}
	}
	return append(out, d.annotations(cp, in, param)...)
}

// conditionsHold evaluates the match conditions (their own budget, no
// namespaceObject): false when one is false; msg, when set, is why they
// could not be decided (errors when none was false).
func (cp *compiledPolicy) conditionsHold(in *inputs, param *jsonv.Value) (ok bool, msg string) {
	if len(cp.conditions) == 0 {
		return true, ""
	}
	act := newActivation(cp, in.vals(cp, param, false))
	budget := int64(matchConditionLimit)
	var errs []string
	for _, c := range cp.conditions {
		r, err := act.eval(c.prog, &budget)
		if err != nil {
			return false, err.Error()
		}
		if r.err != "" {
			errs = append(errs, r.err)
			continue
		}
		if r.val == types.False {
			return false, ""
		}
	}
	if len(errs) > 0 {
		return false, aggregate(errs)
	}
	return true, ""
}

// failureMessage is what a failed validation says: its messageExpression's
// value when that is a usable line, else its message, else the
// expression.
func failureMessage(v validationRule, m evalResult) string {
	var msg string
	if m.val != nil {
		if s, ok := m.val.Value().(string); ok {
			msg = strings.TrimSpace(s)
			if len(msg) > maxMessageBytes || strings.Contains(msg, "\n") {
				msg = ""
			}
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(v.Message)
	}
	if msg == "" {
		msg = "failed expression: " + strings.TrimSpace(v.Expression)
	}
	return msg
}

// annotations evaluates the audit annotations: the server keeps no audit
// log, so only their failures (which deny under failurePolicy Fail)
// show.
func (d *Dispatcher) annotations(cp *compiledPolicy, in *inputs, param *jsonv.Value) []decision {
	if len(cp.annotations) == 0 {
		return nil
	}
	deny := failDenies(cp)
	act := newActivation(cp, in.vals(cp, param, true))
	budget := int64(runtimeBudget)
	var out []decision
	for i, p := range cp.annotations {
		r, err := act.eval(p, &budget)
		if err != nil {
			if deny {
				out = append(out, decision{message: err.Error()})
			}
			return out
		}
		switch {
		case r.err != "":
			if deny {
				out = append(out, decision{message: r.err})
			}
		case r.val == nil:
		case r.val.Type() == types.StringType || r.val.Type() == types.NullType:
		default:
			out = append(out, decision{message: "valueExpression '" + cp.policy.Spec.AuditAnnotations[i].ValueExpression + "' resulted in unsupported return type: " + r.val.Type().TypeName() + ". Return type must be either string or null."})
		}
	}
	return out
}

// aggregate joins errors as the real server's aggregate error does.
func aggregate(errs []string) string {
	var uniq []string
	seen := map[string]bool{}
	for _, e := range errs {
		if !seen[e] {
			seen[e] = true
			uniq = append(uniq, e)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "[" + strings.Join(uniq, ", ") + "]"
}
