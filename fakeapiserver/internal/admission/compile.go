package admission

import (
	"github.com/google/cel-go/cel"
)

// compiledPolicy is a ValidatingAdmissionPolicy ready to run.
type compiledPolicy struct {
	policy validatingPolicy
	// configErr, when set, fails every request the policy matches
	// (under failurePolicy Fail).
	configErr string
	vars      []compiledVar
	varIndex  map[string]int
	// conditions are the match conditions, by name.
	conditions []namedProgram
	validate   []program
	// messages[i] is validation i's messageExpression (prog nil when it
	// has none).
	messages    []program
	annotations []program
	// vt declares the variables (mutations compile with it too).
	vt *varTypes
}

type compiledVar struct {
	name string
	prog program
}

type namedProgram struct {
	name string
	prog program
}

// compilePolicy compiles every expression of p in the environments the
// real server uses: variables, match conditions, validations and audit
// annotations see the authorizer, message expressions do not.
func compilePolicy(p validatingPolicy) *compiledPolicy {
	cp := &compiledPolicy{policy: p, varIndex: map[string]int{}}
	spec := envSpec{params: p.Spec.ParamKind != nil, authorizer: true, variables: len(p.Spec.Variables) > 0}
	vt := newVarTypes()
	cp.vt = vt
	for _, v := range p.Spec.Variables {
		env, err := newEnv(vt, spec)
		if err != nil {
			cp.configErr = err.Error()
			return cp
		}
		prog, out := compileExpr(env, v.Expression)
		vt.add(v.Name, out)
		cp.varIndex[v.Name] = len(cp.vars)
		cp.vars = append(cp.vars, compiledVar{name: v.Name, prog: prog})
	}
	env, err := newEnv(vt, spec)
	if err != nil {
		cp.configErr = err.Error()
		return cp
	}
	msgEnv, err := newEnv(vt, envSpec{params: spec.params, variables: spec.variables})
	if err != nil {
		cp.configErr = err.Error()
		return cp
	}
	for _, c := range p.Spec.MatchConditions {
		prog, _ := compileExpr(env, c.Expression, cel.BoolType)
		cp.conditions = append(cp.conditions, namedProgram{name: c.Name, prog: prog})
	}
	for _, v := range p.Spec.Validations {
		prog, _ := compileExpr(env, v.Expression, cel.BoolType)
		cp.validate = append(cp.validate, prog)
		var msg program
		if v.MessageExpression != "" {
			msg, _ = compileExpr(msgEnv, v.MessageExpression, cel.StringType)
		}
		cp.messages = append(cp.messages, msg)
	}
	for _, a := range p.Spec.AuditAnnotations {
		prog, _ := compileExpr(env, a.ValueExpression, cel.StringType, cel.NullType)
		cp.annotations = append(cp.annotations, prog)
	}
	return cp
}
