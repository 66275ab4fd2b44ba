package admission

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// errOutOfBudget is the real server's refusal once a binding's
// expressions have spent their cost budget.
var errOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// activation holds the values one policy's expressions see for one
// request (and one param).
type activation struct {
	vals map[string]any
	vars *lazyVars
}

// lazyVars evaluates a policy's variables when first read, once per
// activation, and charges their cost to the expression that read them.
type lazyVars struct {
	cp    *compiledPolicy
	act   *activation
	done  map[string]ref.Val
	spent int64
}

// Value implements ref.Val's accessor: field reads receive lazyVars.
func (l *lazyVars) get(name string) ref.Val {
	if v, ok := l.done[name]; ok {
		return v
	}
	i, ok := l.cp.varIndex[name]
	if !ok {
		return types.NewErr("no such key: %s", name)
	}
	cv := l.cp.vars[i]
	var v ref.Val
	if cv.prog.prog == nil {
		v = types.NewErr("composited variable %q fails to compile: %v", name, cv.prog.err)
	} else {
		out, det, err := cv.prog.prog.Eval(l.act.vals)
		if det != nil && det.ActualCost() != nil {
			l.spent += int64(*det.ActualCost())
		}
		switch {
		case err != nil:
			v = types.NewErr("composited variable %q fails to evaluate: %v", name, err)
		default:
			v = out
		}
	}
	l.done[name] = v
	return v
}

// newActivation prepares the values of one evaluation.
func newActivation(cp *compiledPolicy, vals map[string]any) *activation {
	act := &activation{vals: vals}
	act.vars = &lazyVars{cp: cp, act: act, done: map[string]ref.Val{}}
	vals["variables"] = varsVal{act.vars}
	return act
}

// varsVal is the variables object as a CEL value.
type varsVal struct{ l *lazyVars }

func (v varsVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("variables cannot be converted")
}
func (v varsVal) ConvertToType(t ref.Type) ref.Val {
	return types.NewErr("variables cannot be converted")
}
func (v varsVal) Equal(other ref.Val) ref.Val { return types.False }
func (v varsVal) Type() ref.Type              { return types.NewObjectType(varsTypeName) }
func (v varsVal) Value() any                  { return v.l }

// evalResult is one expression's outcome.
type evalResult struct {
	val ref.Val
	// err is the real server's message for an expression that failed.
	err string
}

// eval runs p, taking its cost (and that of the variables it read) from
// budget. A nil program is a placeholder and yields nothing; a budget
// overrun is errOutOfBudget.
func (a *activation) eval(p program, budget *int64) (evalResult, error) {
	if p.prog == nil {
		if p.err == "" {
			return evalResult{}, nil
		}
		return evalResult{err: "compilation error: " + p.err}, nil
	}
	before := a.vars.spent
	out, det, err := p.prog.Eval(a.vals)
	varCost := a.vars.spent - before
	if varCost > *budget {
		return evalResult{}, errOutOfBudget
	}
	*budget -= varCost
	if det == nil || det.ActualCost() == nil {
		return evalResult{}, fmt.Errorf("runtime cost could not be calculated for expression: %v, no further expression will be run", p.expr)
	}
	if c := int64(*det.ActualCost()); c > *budget || c < 0 {
		return evalResult{}, errOutOfBudget
	} else {
		*budget -= c
	}
	if err != nil {
		return evalResult{err: fmt.Sprintf("expression '%v' resulted in error: %v", p.expr, err)}, nil
	}
	return evalResult{val: out}, nil
}
