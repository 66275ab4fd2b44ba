package admission

import (
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// CheckPolicy validates a ValidatingAdmissionPolicy being written as the
// real server does beyond its schema: the required parts, and every
// expression compiled (the real compile errors, in its order).
func CheckPolicy(doc jsonv.Value) []apistatus.FieldError {
	var p validatingPolicy
	if err := decode(doc, &p); err != nil {
		return nil
	}
	var errs []apistatus.FieldError
	sp := &p.Spec
	if sp.FailurePolicy != nil && *sp.FailurePolicy != "Fail" && *sp.FailurePolicy != "Ignore" {
		errs = append(errs, apistatus.FieldNotSupported("spec.failurePolicy", *sp.FailurePolicy, "Fail", "Ignore"))
	}
	if sp.MatchConstraints == nil {
		errs = append(errs, apistatus.FieldRequired("spec.matchConstraints", ""))
	} else if len(sp.MatchConstraints.ResourceRules) == 0 {
		errs = append(errs, apistatus.FieldRequired("spec.matchConstraints.resourceRules", ""))
	}
	hasParams := sp.ParamKind != nil
	vt := newVarTypes()
	// Match conditions compile without the policy's variables.
	condEnv, err := newEnv(vt, envSpec{params: hasParams, authorizer: true})
	if err != nil {
		return errs
	}
	for i, c := range sp.MatchConditions {
		path := "spec.matchConditions[" + strconv.Itoa(i) + "]"
		expr := strings.TrimSpace(c.Expression)
		if expr == "" {
			errs = append(errs, apistatus.FieldRequired(path+".expression", ""))
		} else if prog, _ := compileExpr(condEnv, expr, cel.BoolType); prog.err != "" {
			errs = append(errs, apistatus.FieldInvalid(path+".expression", expr, prog.err))
		}
		if c.Name == "" {
			errs = append(errs, apistatus.FieldRequired(path+".name", ""))
		}
	}
	spec := envSpec{params: hasParams, authorizer: true, variables: len(sp.Variables) > 0}
	for i, v := range sp.Variables {
		path := "spec.variables[" + strconv.Itoa(i) + "]"
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, apistatus.FieldRequired(path+".name", "name is not specified"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, apistatus.FieldRequired(path+".expression", "expression is not specified"))
			continue
		}
		env, err := newEnv(vt, spec)
		if err != nil {
			return errs
		}
		prog, out := compileExpr(env, v.Expression)
		if prog.err != "" {
			errs = append(errs, apistatus.FieldInvalid(path+".expression", v.Expression, prog.err))
		}
		vt.add(v.Name, out)
	}
	env, err := newEnv(vt, spec)
	if err != nil {
		return errs
	}
	msgEnv, err := newEnv(vt, envSpec{params: hasParams, variables: spec.variables})
	if err != nil {
		return errs
	}
	if len(sp.Validations) == 0 && len(sp.AuditAnnotations) == 0 {
		const both = "validations or auditAnnotations must contain at least one item"
		return append(errs, apistatus.FieldRequired("spec.validations", both), apistatus.FieldRequired("spec.auditAnnotations", both))
	}
	for i, v := range sp.Validations {
		errs = append(errs, checkValidation(env, msgEnv, v, "spec.validations["+strconv.Itoa(i)+"]")...)
	}
	for i, a := range sp.AuditAnnotations {
		path := "spec.auditAnnotations[" + strconv.Itoa(i) + "].valueExpression"
		expr := strings.TrimSpace(a.ValueExpression)
		if expr == "" {
			errs = append(errs, apistatus.FieldRequired(path, "valueExpression is not specified"))
		} else if prog, _ := compileExpr(env, expr, cel.StringType, cel.NullType); prog.err != "" {
			errs = append(errs, apistatus.FieldInvalid(path, a.ValueExpression, prog.err))
		}
	}
	return errs
}

// checkValidation checks one validation's expression, messageExpression,
// message and reason.
func checkValidation(env, msgEnv *cel.Env, v validationRule, path string) []apistatus.FieldError {
	var errs []apistatus.FieldError
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, apistatus.FieldRequired(path+".expression", "expression is not specified"))
	} else if prog, _ := compileExpr(env, v.Expression, cel.BoolType); prog.err != "" {
		errs = append(errs, apistatus.FieldInvalid(path+".expression", v.Expression, prog.err))
	}
	switch {
	case v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "":
		errs = append(errs, apistatus.FieldInvalid(path+".messageExpression", v.MessageExpression, "must be non-empty if specified"))
	case v.MessageExpression != "":
		if prog, _ := compileExpr(msgEnv, v.MessageExpression, cel.StringType); prog.err != "" {
			errs = append(errs, apistatus.FieldInvalid(path+".messageExpression", v.MessageExpression, prog.err))
		}
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, apistatus.FieldInvalid(path+".message", v.Message, "must be non-empty if specified"))
	case strings.ContainsAny(msg, "\r\n"):
		errs = append(errs, apistatus.FieldInvalid(path+".message", v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil {
		switch *v.Reason {
		case "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge":
		default:
			errs = append(errs, apistatus.FieldNotSupported(path+".reason", *v.Reason, "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"))
		}
	}
	return errs
}

// CheckBinding validates a ValidatingAdmissionPolicyBinding being written
// as the real server does beyond its schema.
func CheckBinding(doc jsonv.Value) []apistatus.FieldError {
	var b policyBinding
	if err := decode(doc, &b); err != nil {
		return nil
	}
	var errs []apistatus.FieldError
	if b.Spec.PolicyName == "" {
		errs = append(errs, apistatus.FieldRequired("spec.policyName", ""))
	}
	if r := b.Spec.ParamRef; r != nil {
		if r.Name != "" && r.Selector != nil {
			errs = append(errs, apistatus.FieldForbidden("spec.paramRef.name", "name and selector are mutually exclusive"))
		}
		if r.Name == "" && r.Selector == nil {
			errs = append(errs, apistatus.FieldRequired("spec.paramRef", "one of name or selector must be specified"))
		}
		if r.ParameterNotFoundAction == nil {
			errs = append(errs, apistatus.FieldRequired("spec.paramRef.parameterNotFoundAction", ""))
		} else if a := *r.ParameterNotFoundAction; a != "Allow" && a != "Deny" {
			errs = append(errs, apistatus.FieldNotSupported("spec.paramRef.parameterNotFoundAction", a, "Allow", "Deny"))
		}
	}
	return append(errs, checkActions(b.Spec.ValidationActions)...)
}

func checkActions(actions []string) []apistatus.FieldError {
	var errs []apistatus.FieldError
	seen := map[string]bool{}
	for i, a := range actions {
		path := "spec.validationActions[" + strconv.Itoa(i) + "]"
		switch a {
		case "Deny", "Warn", "Audit":
		default:
			errs = append(errs, apistatus.FieldNotSupported(path, a, "Audit", "Deny", "Warn"))
		}
		if seen[a] {
			errs = append(errs, apistatus.FieldError{Type: meta.CauseFieldValueDuplicate, Field: path, Value: strconv.Quote(a)})
		}
		seen[a] = true
	}
	if seen["Deny"] && seen["Warn"] {
		q := make([]string, len(actions))
		for i, a := range actions {
			q[i] = strconv.Quote(a)
		}
		errs = append(errs, apistatus.FieldInvalidRaw("spec.validationActions", "["+strings.Join(q, ",")+"]", "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, apistatus.FieldRequired("spec.validationActions", ""))
	}
	return errs
}

// webhookConditionEnv is the environment of webhook match conditions:
// object, oldObject, request and the authorizer, without params.
var webhookConditionEnv = sync.OnceValues(func() (*cel.Env, error) {
	return newEnv(newVarTypes(), envSpec{authorizer: true})
})

// CheckWebhookCondition compiles a match condition of a validating or
// mutating webhook as the real server does when the configuration is
// written, and returns why it is refused ("compilation failed: …", "must
// evaluate to bool …"), or "" when it compiles to a bool.
func CheckWebhookCondition(expr string) string {
	env, err := webhookConditionEnv()
	if err != nil {
		return ""
	}
	prog, _ := compileExpr(env, expr, cel.BoolType)
	return prog.err
}
