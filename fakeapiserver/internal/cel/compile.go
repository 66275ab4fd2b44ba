package cel

import (
	"encoding/json"
	"strconv"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
)

// Cost limits of kube-apiserver's CEL validation: one evaluation of one
// rule, and all the rules of one object together.
const (
	perCallLimit  = 1_000_000
	runtimeBudget = 10_000_000
)

// Rules are a schema's compiled x-kubernetes-validations, by node.
type Rules struct {
	root *node
}

// node is one schema node and the compiled rules of it and below it.
type node struct {
	schema *structural.Schema
	rules  []compiled
	props  map[string]*node
	items  *node
	values *node
	// any says whether this node or one below it has rules.
	any bool
}

// compiled is one rule ready to run.
type compiled struct {
	rule       structural.Rule
	prog       cel.Program
	message    cel.Program
	transition bool
	optional   bool
}

// ruleJSON is how the real server shows a rule in a compile error: its
// Go field names, null for unset pointers.
type ruleJSON struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

// Compile compiles every rule of schema s, whose place in the CRD is path
// ("spec.validation.openAPIV3Schema"). A rule that does not compile is a
// field error in the real server's words; Rules is nil when s has no
// rules at all.
func Compile(s *structural.Schema, path string) (*Rules, []apistatus.FieldError) {
	if s == nil {
		return nil, nil
	}
	c := &compiler{p: newProvider()}
	root := c.node(s, "Object", path, 0)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	if !root.any {
		return nil, nil
	}
	return &Rules{root: root}, nil
}

type compiler struct {
	p    *provider
	errs []apistatus.FieldError
}

func (c *compiler) node(s *structural.Schema, typeName, path string, depth int) *node {
	n := &node{schema: s}
	if s == nil || depth > 64 {
		return n
	}
	if len(s.Validations) > 0 {
		t := c.p.declType(s, typeName, 0)
		for i, r := range s.Validations {
			if cr, ok := c.rule(r, t, path+".x-kubernetes-validations["+strconv.Itoa(i)+"]"); ok {
				n.rules = append(n.rules, cr)
			}
		}
		n.any = true
	}
	for _, name := range s.PropertyNames() {
		child := c.node(s.Properties[name], typeName+"."+name, path+".properties["+name+"]", depth+1)
		if child.any {
			if n.props == nil {
				n.props = map[string]*node{}
			}
			n.props[name] = child
			n.any = true
		}
	}
	if s.Items != nil {
		if n.items = c.node(s.Items, typeName+".@items", path+".items", depth+1); n.items.any {
			n.any = true
		}
	}
	if s.AdditionalProperties != nil {
		if n.values = c.node(s.AdditionalProperties, typeName+".@values", path+".additionalProperties", depth+1); n.values.any {
			n.any = true
		}
	}
	return n
}

// rule compiles one rule (and its messageExpression) for a node of type t.
func (c *compiler) rule(r structural.Rule, t *types.Type, path string) (compiled, bool) {
	var reason *string
	if r.Reason != "" {
		reason = &r.Reason
	}
	shown, _ := json.Marshal(ruleJSON{Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression, Reason: reason, FieldPath: r.FieldPath, OptionalOldSelf: r.OptionalOldSelf})
	fail := func(field, detail string) (compiled, bool) {
		c.errs = append(c.errs, apistatus.FieldInvalidRaw(path+"."+field, string(shown), detail))
		return compiled{}, false
	}
	optional := r.OptionalOldSelf != nil && *r.OptionalOldSelf
	oldType := t
	if optional {
		oldType = cel.OptionalType(t)
	}
	env, err := envFor(c.p, t, oldType)
	if err != nil {
		return fail("rule", "compilation failed: "+err.Error())
	}
	ast, iss := env.Compile(r.Rule)
	if iss.Err() != nil {
		return fail("rule", "compilation failed: "+iss.Err().Error())
	}
	if !ast.OutputType().IsExactType(types.BoolType) && ast.OutputType() != types.DynType {
		return fail("rule", "cel expression must evaluate to a bool")
	}
	prog, err := env.Program(ast, cel.CostLimit(perCallLimit), cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		return fail("rule", "compilation failed: "+err.Error())
	}
	cr := compiled{rule: r, prog: prog, optional: optional}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			cr.transition = true
		}
	}
	if r.MessageExpression != "" {
		mast, iss := env.Compile(r.MessageExpression)
		if iss.Err() != nil {
			return fail("messageExpression", "messageExpression compilation failed: "+iss.Err().Error())
		}
		if !mast.OutputType().IsExactType(types.StringType) && mast.OutputType() != types.DynType {
			return fail("messageExpression", "must evaluate to a string")
		}
		if cr.message, err = env.Program(mast, cel.CostLimit(perCallLimit), cel.EvalOptions(cel.OptTrackCost)); err != nil {
			return fail("messageExpression", "messageExpression compilation failed: "+err.Error())
		}
	}
	return cr, true
}
