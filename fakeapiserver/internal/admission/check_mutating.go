package admission

import (
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// CheckMutatingPolicy validates a MutatingAdmissionPolicy being written
// as the real server does beyond its schema: the required parts and its
// mutations compiled (the real wording).
func CheckMutatingPolicy(doc jsonv.Value) []apistatus.FieldError {
	var p struct {
		mutatingPolicy
		Spec struct {
			ReinvocationPolicy *string `json:"reinvocationPolicy"`
		} `json:"spec"`
	}
	if err := decode(doc, &p.mutatingPolicy); err != nil {
		return nil
	}
	_ = decode(doc, &p)
	var errs []apistatus.FieldError
	sp := &p.mutatingPolicy.Spec
	if sp.MatchConstraints == nil {
		errs = append(errs, apistatus.FieldRequired("spec.matchConstraints", ""))
	} else if len(sp.MatchConstraints.ResourceRules) == 0 {
		errs = append(errs, apistatus.FieldRequired("spec.matchConstraints.resourceRules", ""))
	}
	vt := newVarTypes()
	hasParams := sp.ParamKind != nil
	for i, v := range sp.Variables {
		env, err := newEnv(vt, envSpec{params: hasParams, authorizer: true, variables: true})
		if err != nil {
			return errs
		}
		prog, out := compileExpr(env, v.Expression)
		if prog.err != "" {
			errs = append(errs, apistatus.FieldInvalid("spec.variables["+strconv.Itoa(i)+"].expression", v.Expression, prog.err))
		}
		vt.add(v.Name, out)
	}
	env, err := newEnv(vt, envSpec{params: hasParams, authorizer: true, variables: len(sp.Variables) > 0, patchTypes: true})
	if err != nil {
		return errs
	}
	if len(sp.Mutations) == 0 {
		errs = append(errs, apistatus.FieldRequired("spec.mutations", "mutations must contain at least one item"))
	}
	for i, m := range sp.Mutations {
		path := "spec.mutations[" + strconv.Itoa(i) + "]"
		var ex *expression
		var field string
		var want *cel.Type
		switch m.PatchType {
		case "ApplyConfiguration":
			ex, field, want = m.ApplyConfiguration, "applyConfiguration", objectType
		case "JSONPatch":
			ex, field, want = m.JSONPatch, "jsonPatch", cel.ListType(cel.ObjectType(jsonPatchTypeName))
		case "":
			errs = append(errs, apistatus.FieldRequired(path+".patchType", ""))
			continue
		default:
			errs = append(errs, apistatus.FieldNotSupported(path+".patchType", m.PatchType, "ApplyConfiguration", "JSONPatch"))
			continue
		}
		if ex == nil {
			errs = append(errs, apistatus.FieldRequired(path+"."+field, "must be specified when patchType is "+m.PatchType))
			continue
		}
		if strings.TrimSpace(ex.Expression) == "" {
			errs = append(errs, apistatus.FieldRequired(path+"."+field+".expression", "expression is not specified"))
		} else if prog, _ := compileExpr(env, ex.Expression, want); prog.err != "" {
			errs = append(errs, apistatus.FieldInvalid(path+"."+field+".expression", ex.Expression, prog.err))
		}
	}
	if r := p.Spec.ReinvocationPolicy; r == nil {
		errs = append(errs, apistatus.FieldRequired("spec.reinvocationPolicy", ""))
	} else if *r != "Never" && *r != "IfNeeded" {
		errs = append(errs, apistatus.FieldNotSupported("spec.reinvocationPolicy", *r, "IfNeeded", "Never"))
	}
	return errs
}
