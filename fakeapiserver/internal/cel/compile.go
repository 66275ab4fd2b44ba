package cel

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/google/cel-go/cel"
	celchecker "github.com/google/cel-go/checker"
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
	root := c.node(withIdentity(s), "Object", path, 0, 1)
	c.checkTotal(path)
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
	// total is the estimated cost of all the rules; expensive the paths
	// of the (at most four) costliest rules of 1% of the limit or more.
	total     uint64
	expensive []ruleCost
}

type ruleCost struct {
	path string
	cost uint64
}

// node compiles the rules of s and below; card is how many values s can
// have in one object (the product of the lists' and maps' sizes above).
func (c *compiler) node(s *structural.Schema, typeName, path string, depth int, card uint64) *node {
	n := &node{schema: s}
	if s == nil || depth > 64 {
		return n
	}
	if len(s.Validations) > 0 {
		t := c.p.declType(s, typeName, 0)
		for i, r := range s.Validations {
			if cr, ok := c.rule(r, s, t, path+".x-kubernetes-validations["+strconv.Itoa(i)+"]", card); ok {
				n.rules = append(n.rules, cr)
			}
		}
		n.any = true
	}
	for _, name := range s.PropertyNames() {
		child := c.node(s.Properties[name], typeName+"."+name, path+".properties["+name+"]", depth+1, card)
		if child.any {
			if n.props == nil {
				n.props = map[string]*node{}
			}
			n.props[name] = child
			n.any = true
		}
	}
	if s.Items != nil {
		if n.items = c.node(s.Items, typeName+".@items", path+".items", depth+1, multiply(card, uint64(maxItems(s)))); n.items.any {
			n.any = true
		}
	}
	if s.AdditionalProperties != nil {
		if n.values = c.node(s.AdditionalProperties, typeName+".@values", path+".additionalProperties", depth+1, multiply(card, uint64(maxProperties(s)))); n.values.any {
			n.any = true
		}
	}
	return n
}

// rule compiles one rule (and its messageExpression) for a node of schema
// s and type t, which can have card values in one object.
func (c *compiler) rule(r structural.Rule, s *structural.Schema, t *types.Type, path string, card uint64) (compiled, bool) {
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
	if est, err := env.EstimateCost(ast, sizes{self: s}, celchecker.PresenceTestHasCost(false)); err == nil {
		cost := multiply(est.Max, card)
		if cost > estimatedCostLimit {
			c.errs = append(c.errs, apistatus.FieldForbidden(path+".rule", costMessage("estimated rule cost", cost, estimatedCostLimit)))
		}
		c.observe(path+".rule", cost)
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
		// A message is estimated once, not times the node's cardinality.
		if est, err := env.EstimateCost(mast, sizes{self: s}, celchecker.PresenceTestHasCost(false)); err == nil {
			if est.Max > estimatedCostLimit {
				c.errs = append(c.errs, apistatus.FieldForbidden(path+".messageExpression", costMessage("estimated messageExpression cost", est.Max, estimatedCostLimit)))
			}
			c.observe(path+".messageExpression", est.Max)
		}
	}
	return cr, true
}

// observe adds a rule's estimated cost to the schema's total.
func (c *compiler) observe(path string, cost uint64) {
	if c.total > math.MaxUint64-cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < estimatedCRDCostLimit/100 {
		return
	}
	c.expensive = append(c.expensive, ruleCost{path: path, cost: cost})
	sort.SliceStable(c.expensive, func(i, j int) bool { return c.expensive[i].cost > c.expensive[j].cost })
	if len(c.expensive) > 4 {
		c.expensive = c.expensive[:4]
	}
}

// checkTotal refuses a schema whose rules together cost too much, naming
// the costliest ones and the schema (path).
func (c *compiler) checkTotal(path string) {
	if c.total <= estimatedCRDCostLimit {
		return
	}
	for _, e := range c.expensive {
		c.errs = append(c.errs, apistatus.FieldForbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
	}
	c.errs = append(c.errs, apistatus.FieldForbidden(path, costMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, estimatedCRDCostLimit)))
}
