package admission

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/patch"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Tables of the mutating policies and their bindings.
const (
	mutatingPolicies = "admissionregistration.k8s.io/mutatingadmissionpolicies"
	mutatingBindings = "admissionregistration.k8s.io/mutatingadmissionpolicybindings"
)

// mutatingPolicy is a MutatingAdmissionPolicy.
type mutatingPolicy struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		ParamKind        *paramKind        `json:"paramKind"`
		MatchConstraints *matchResources   `json:"matchConstraints"`
		Variables        []namedExpression `json:"variables"`
		Mutations        []mutation        `json:"mutations"`
		FailurePolicy    *string           `json:"failurePolicy"`
		MatchConditions  []namedExpression `json:"matchConditions"`
	} `json:"spec"`
}

type mutation struct {
	PatchType          string      `json:"patchType"`
	ApplyConfiguration *expression `json:"applyConfiguration"`
	JSONPatch          *expression `json:"jsonPatch"`
}

type expression struct {
	Expression string `json:"expression"`
}

// compiledMutating is a MutatingAdmissionPolicy ready to run: its
// variables and match conditions as a validating policy's, and its
// mutations.
type compiledMutating struct {
	*compiledPolicy
	mutations []compiledMutation
}

type compiledMutation struct {
	apply bool
	prog  program
}

var objectType = cel.ObjectType(objectTypeName)

func compileMutating(p mutatingPolicy) *compiledMutating {
	var vp validatingPolicy
	vp.Metadata = p.Metadata
	vp.Spec.ParamKind, vp.Spec.MatchConstraints, vp.Spec.FailurePolicy = p.Spec.ParamKind, p.Spec.MatchConstraints, p.Spec.FailurePolicy
	vp.Spec.Variables, vp.Spec.MatchConditions = p.Spec.Variables, p.Spec.MatchConditions
	cm := &compiledMutating{compiledPolicy: compilePolicy(vp)}
	env, err := newEnv(cm.vt, envSpec{params: p.Spec.ParamKind != nil, authorizer: true, variables: len(p.Spec.Variables) > 0, patchTypes: true})
	if err != nil {
		cm.configErr = err.Error()
		return cm
	}
	for _, m := range p.Spec.Mutations {
		switch {
		case m.PatchType == "ApplyConfiguration" && m.ApplyConfiguration != nil:
			prog, _ := compileExpr(env, m.ApplyConfiguration.Expression, objectType)
			cm.mutations = append(cm.mutations, compiledMutation{apply: true, prog: prog})
		case m.PatchType == "JSONPatch" && m.JSONPatch != nil:
			prog, _ := compileExpr(env, m.JSONPatch.Expression, cel.ListType(cel.ObjectType(jsonPatchTypeName)))
			cm.mutations = append(cm.mutations, compiledMutation{prog: prog})
		}
	}
	return cm
}

// policyError is one failure of a mutating policy.
type policyError struct {
	policy, binding string
	message         string
	reason          meta.StatusReason
}

func (e policyError) String() string {
	if e.binding != "" {
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy, e.binding, e.message)
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy, e.message)
}

// Mutate runs every MutatingAdmissionPolicy that matches the request on
// its object and returns the object they made (a.Object when none
// changed it), or the real server's refusal when one failed under
// failurePolicy Fail.
func (d *Dispatcher) Mutate(a *Attributes) (*jsonv.Value, error) {
	if exempt(a) || a.Object == nil {
		return a.Object, nil
	}
	policies := d.mutatingPolicies()
	if len(policies) == 0 {
		return a.Object, nil
	}
	bindings := d.bindingsIn(mutatingBindings)
	obj := *a.Object
	var errs []policyError
	fail := func(cp *compiledMutating, binding, msg string, reason meta.StatusReason) {
		if failDenies(cp.compiledPolicy) {
			errs = append(errs, policyError{policy: cp.policy.Metadata.Name, binding: binding, message: msg, reason: reason})
		}
	}
	for _, cp := range policies {
		mc := cp.policy.Spec.MatchConstraints
		if mc == nil {
			fail(cp, "", "failed to configure policy: policy contained no match constraints, a required field", "")
			continue
		}
		ok, at, err := d.matches(a, mc)
		switch {
		case err != nil:
			fail(cp, "", "failed to configure policy: "+err.Error(), "")
			continue
		case !ok:
			continue
		case cp.configErr != "":
			fail(cp, "", "failed to configure policy: "+cp.configErr, "")
			continue
		}
		for _, b := range bindings[cp.policy.Metadata.Name] {
			if b.Spec.MatchResources != nil {
				ok, _, err := d.matches(a, b.Spec.MatchResources)
				if err != nil {
					fail(cp, b.Metadata.Name, "failed to configure binding: "+err.Error(), "")
					continue
				}
				if !ok {
					continue
				}
			}
			params, err := d.params(cp.compiledPolicy, &b, a.Namespace)
			if err != nil {
				fail(cp, b.Metadata.Name, "failed to configure binding: "+err.Error(), "")
				continue
			}
			for _, param := range params {
				cur := &Attributes{}
				*cur = *a
				cur.Object = &obj
				for _, msg := range d.mutateOne(cp, cur, at, param, &obj) {
					fail(cp, b.Metadata.Name, msg, meta.ReasonInvalid)
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, mutationRefusal(a, errs)
	}
	return &obj, nil
}

// mutateOne applies cp's mutations for one param to obj; it returns the
// failures' messages.
func (d *Dispatcher) mutateOne(cp *compiledMutating, a *Attributes, at matched, param *jsonv.Value, obj *jsonv.Value) []string {
	if ok, msg := cp.conditionsHold(d.inputs(a, at), param); msg != "" {
		return []string{msg}
	} else if !ok {
		return nil
	}
	var out []string
	for _, m := range cp.mutations {
		a.Object = obj
		in := d.inputs(a, at)
		act := newActivation(cp.compiledPolicy, in.vals(cp.compiledPolicy, param, true))
		budget := int64(runtimeBudget)
		r, err := act.eval(m.prog, &budget)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		if r.err != "" {
			out = append(out, r.err)
			continue
		}
		next, err := d.applyMutation(m, r, a, obj)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		*obj = next
	}
	return out
}

// applyMutation applies one mutation's value to obj.
func (d *Dispatcher) applyMutation(m compiledMutation, r evalResult, a *Attributes, obj *jsonv.Value) (jsonv.Value, error) {
	if m.apply {
		if errs := checkTypeNames(r.val, objectTypeName); len(errs) > 0 {
			return jsonv.Value{}, errors.New("type mismatch: " + strings.Join(errs, "\n"))
		}
		cfg, err := toJSON(r.val)
		if err != nil {
			return jsonv.Value{}, fmt.Errorf("error applying patch: %w", err)
		}
		merged := mergeConfig(d.src, a, *obj, cfg)
		return merged, nil
	}
	l, ok := r.val.(traits.Lister)
	if !ok {
		return jsonv.Value{}, errors.New("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	ops := jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{}}
	for it := l.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		if errs := checkTypeNames(v, jsonPatchTypeName); len(errs) > 0 {
			return jsonv.Value{}, errors.New("type mismatch: " + strings.Join(errs, "\n"))
		}
		op, err := toJSON(v)
		if err != nil {
			return jsonv.Value{}, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
		}
		ops.Arr = append(ops.Arr, op)
	}
	patched, err := patch.JSON(jsonv.Marshal(*obj), jsonv.Marshal(ops))
	if errors.Is(err, patch.ErrTestFailed) {
		return *obj, nil
	}
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("JSON Patch: %w", err)
	}
	return patched, nil
}

// mergeConfig merges an ApplyConfiguration into obj with the kind's
// field structure (kind and apiVersion as the object's).
func mergeConfig(src Resolver, a *Attributes, obj, cfg jsonv.Value) jsonv.Value {
	for _, k := range []string{"apiVersion", "kind"} {
		if v := obj.Get(k); v != nil {
			cfg.Set(k, *v)
		}
	}
	if src == nil {
		return obj
	}
	return src.Merge(a.Group, a.Version, a.Kind, obj, cfg)
}

// mutationRefusal is the real server's refusal by mutating policies: a
// Forbidden whose message (and reason, when it has one) is the first
// failure's, every failure a cause.
func mutationRefusal(a *Attributes, errs []policyError) *meta.Status {
	gr := apistatus.GroupResource{Group: a.Group, Resource: a.Resource}
	name := a.nameOf()
	st := apistatus.New(403, meta.ReasonForbidden, errs[0].String())
	if errs[0].reason != "" {
		st.Reason = errs[0].reason
	}
	st.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	for _, e := range errs {
		st.Details.Causes = append(st.Details.Causes, meta.StatusCause{Message: e.String()})
	}
	return st
}

// mutatingPolicies returns the stored mutating policies, compiled, in
// name order.
func (d *Dispatcher) mutatingPolicies() []*compiledMutating {
	objs, _ := d.store.Current(mutatingPolicies)
	var out []*compiledMutating
	d.mu.Lock()
	defer d.mu.Unlock()
	objs.Ascend("", func(_ string, o *storage.Object) bool {
		key := "m/" + o.Meta.Name
		if c, ok := d.mcache[key]; ok && c.rv == o.Meta.ResourceVersion {
			out = append(out, c.cm)
			return true
		}
		doc, err := o.Document()
		if err != nil {
			return true
		}
		var p mutatingPolicy
		if decode(doc, &p) != nil {
			return true
		}
		cm := compileMutating(p)
		d.mcache[key] = cachedMutating{rv: o.Meta.ResourceVersion, cm: cm}
		out = append(out, cm)
		return true
	})
	return out
}
