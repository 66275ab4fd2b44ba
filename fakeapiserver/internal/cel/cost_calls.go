package cel

import (
	"math"

	celchecker "github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
)

// The real estimator's unit costs: a walk over a string costs 0.1 per
// byte, a regular expression 0.25 per byte of its source; a named
// format's expression is taken to be 128 bytes, its name at most 64.
const (
	traversalFactor   = 0.1
	regexFactor       = 0.25
	formatRegexBytes  = 128
	formatNameBytes   = 64
	netResultMaxBytes = 45
)

type (
	costEst = celchecker.CostEstimate
	sizeEst = celchecker.SizeEstimate
	callEst = celchecker.CallEstimate
)

// netOverloads are the network library's functions; their cost is a
// walk over the string they read, their string results no longer than
// it (an address or a prefix at most 45 bytes).
var netOverloads = map[string]bool{
	"string_to_ip": true, "cidr_ip": true, "ip_is_canonical": true, "is_ip": true, "ip_family": true,
	"ip_is_unspecified": true, "ip_is_loopback": true, "ip_is_link_local_multicast": true, "ip_is_link_local_unicast": true,
	"ip_is_global_unicast": true, "string_to_cidr": true, "is_cidr": true, "cidr_contains_ip_string": true,
	"cidr_contains_ip_ip": true, "cidr_contains_cidr_string": true, "cidr_contains_cidr": true, "cidr_prefix_length": true,
	"cidr_masked": true, "ip_to_string": true, "cidr_to_string": true, "string_to_url": true, "is_url_string": true,
	"url_get_scheme": true, "url_get_host": true, "url_get_hostname": true, "url_get_port": true,
	"url_get_escaped_path": true, "url_get_query": true,
}

// EstimateCallCost implements celchecker.CostEstimator: the estimates
// the real server gives the Kubernetes libraries and the string and list
// functions it prices itself; cel-go's own for everything else.
func (z sizes) EstimateCallCost(function, overloadID string, target *celchecker.AstNode, args []celchecker.AstNode) *celchecker.CallEstimate {
	if netOverloads[overloadID] {
		return z.netCost(target, args)
	}
	switch function {
	case "_==_":
		if len(args) == 2 {
			return equalityCost(args[0].Type(), args[1].Type())
		}
	case "quantity", "isQuantity", "semver", "isSemver":
		if len(args) > 0 {
			return &callEst{CostEstimate: z.sizeOf(args[0]).MultiplyByCostFactor(traversalFactor)}
		}
	case "validate":
		if len(args) > 0 {
			return &callEst{CostEstimate: z.sizeOf(args[0]).MultiplyByCostFactor(traversalFactor).MultiplyByCostFactor(formatRegexBytes * regexFactor)}
		}
	case "format.named":
		return &callEst{CostEstimate: costEst{Min: 1, Max: 1}}
	}
	if target == nil {
		return nil
	}
	return z.memberCost(function, *target, args)
}

// memberCost prices the string and list member functions.
func (z sizes) memberCost(function string, target celchecker.AstNode, args []celchecker.AstNode) *celchecker.CallEstimate {
	size := z.sizeOf(target)
	switch function {
	case "lowerAscii", "upperAscii", "substring", "trim":
		return &callEst{CostEstimate: size.MultiplyByCostFactor(traversalFactor), ResultSize: &size}
	case "replace":
		if len(args) >= 2 {
			result := replacedSize(size, z.sizeOf(args[0]), z.sizeOf(args[1]))
			return &callEst{CostEstimate: size.MultiplyByCostFactor(2 * traversalFactor), ResultSize: &result}
		}
	case "split":
		most := size.Max
		if len(args) > 1 {
			if lit := args[1].Expr().AsLiteral(); lit != nil {
				if n, ok := lit.Value().(int64); ok {
					most = uint64(n)
				}
			}
		}
		return &callEst{CostEstimate: size.MultiplyByCostFactor(2 * traversalFactor), ResultSize: &sizeEst{Min: 0, Max: most}}
	case "join":
		var result sizeEst
		if elem, ok := z.elementSize(target); ok {
			result = size.Multiply(elem)
		}
		if len(args) > 0 {
			result = result.Add(z.sizeOf(args[0]).Multiply(sizeEst{Min: sub1(size.Min), Max: sub1(size.Max)}))
		}
		return &callEst{CostEstimate: result.MultiplyByCostFactor(traversalFactor), ResultSize: &result}
	case "find", "findAll":
		if len(args) > 0 {
			str := size.Add(sizeEst{Min: 1, Max: 1}).MultiplyByCostFactor(traversalFactor)
			return &callEst{CostEstimate: str.Multiply(z.sizeOf(args[0]).MultiplyByCostFactor(regexFactor)), ResultSize: &sizeEst{Min: 0, Max: size.Max}}
		}
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		return z.listCost(target, size)
	}
	return nil
}

// listCost prices a walk over a list comparing each item (1, and a walk
// over it when it is a string); indexOf on a string is a walk over it.
func (z sizes) listCost(target celchecker.AstNode, size sizeEst) *celchecker.CallEstimate {
	elem, ok := z.elementSize(target)
	if !ok {
		return &callEst{CostEstimate: size.MultiplyByCostFactor(traversalFactor)}
	}
	each := costEst{Min: 1, Max: 1}
	if k := target.Type().Parameters()[0].Kind(); k == types.StringKind || k == types.BytesKind {
		each = each.Add(elem.MultiplyByCostFactor(traversalFactor))
	}
	return &callEst{CostEstimate: size.MultiplyByCost(each)}
}

// elementSize is the size of a list's items, from the schema when the
// list is a path in self; false when the target is not a list.
func (z sizes) elementSize(list celchecker.AstNode) (sizeEst, bool) {
	t := list.Type()
	if t == nil || t.Kind() != types.ListKind || len(t.Parameters()) == 0 {
		return sizeEst{}, false
	}
	if path := list.Path(); path != nil {
		if e := z.estimatePath(append(append([]string(nil), path...), "@items")); e != nil {
			return *e, true
		}
	}
	return sizeEst{Min: 0, Max: math.MaxUint64}, true
}

// replacedSize bounds the result of replacing from (of size from) with
// to in a string of size s: the longest when the shortest pieces are
// replaced by the longest replacement as often as they fit, the shortest
// the other way round.
func replacedSize(s, from, to sizeEst) sizeEst {
	var count, kept sizeEst
	switch {
	case from.Min == 0:
		count.Max, kept.Max = addSat(s.Max, 1), s.Max
	case to.Max <= from.Min:
		kept.Max = s.Max
	default:
		count.Max = uint64(math.Ceil(float64(s.Max) / float64(from.Min)))
	}
	switch {
	case from.Max == 0:
		count.Min, kept.Min = addSat(s.Min, 1), s.Min
	case from.Max <= to.Min:
		kept.Min = s.Min
	default:
		count.Min = uint64(math.Ceil(float64(s.Min) / float64(from.Max)))
	}
	return count.Multiply(to).Add(kept)
}

func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func sub1(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	return n - 1
}

// netCost is the network library's estimate: a walk over the longest
// string it reads.
func (z sizes) netCost(target *celchecker.AstNode, args []celchecker.AstNode) *celchecker.CallEstimate {
	var size uint64 = netResultMaxBytes
	nodes := args
	if target != nil {
		nodes = append([]celchecker.AstNode{*target}, args...)
	}
	for _, n := range nodes {
		if e := n.ComputedSize(); e != nil {
			size = max(size, e.Max)
		} else if e := z.EstimateSize(n); e != nil {
			size = max(size, e.Max)
		}
	}
	cost := 1 + uint64(math.Ceil(float64(size)*traversalFactor))
	return &callEst{CostEstimate: costEst{Min: 1, Max: cost}, ResultSize: &sizeEst{Min: 0, Max: size}}
}

// equalityCost is the real estimate of == between two Kubernetes library
// values of one type: constant, where cel-go's would count the values'
// sizes.
func equalityCost(a, b *types.Type) *celchecker.CallEstimate {
	if a == nil || b == nil || !a.IsExactType(b) {
		return nil
	}
	switch a.TypeName() {
	case quantityType.TypeName(), semverType.TypeName(), ipType.TypeName(), cidrType.TypeName():
		return &callEst{CostEstimate: costEst{Min: 1, Max: 1}}
	case formatType.TypeName():
		return &callEst{CostEstimate: costEst{Min: 1, Max: formatNameBytes}.MultiplyByCostFactor(traversalFactor)}
	}
	return nil
}

// sizeOf is what is known of an argument's size: computed by cel-go, or
// from the schema, or unbounded.
func (z sizes) sizeOf(n celchecker.AstNode) sizeEst {
	if e := n.ComputedSize(); e != nil {
		return *e
	}
	if e := z.EstimateSize(n); e != nil {
		return *e
	}
	return sizeEst{Min: 0, Max: math.MaxUint64}
}
