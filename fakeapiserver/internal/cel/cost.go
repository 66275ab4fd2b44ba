package cel

import (
	"fmt"
	"math"

	celchecker "github.com/google/cel-go/checker"

	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
)

// The real server's limits on the estimated cost of a CRD's rules: one
// rule (times the most values its node can have in one object), and all
// the rules of a schema together.
const (
	estimatedCostLimit    = 10_000_000
	estimatedCRDCostLimit = 100_000_000
	// maxRequestBytes is the largest body the size estimates assume.
	maxRequestBytes = 3 * 1024 * 1024
)

// The smallest JSON encodings of values, which bound how many fit in one
// request.
const (
	minStringSize = 2
	minBoolSize   = 4
	minNumberSize = 1
)

// minSize is the smallest JSON encoding of a value of s.
func minSize(s *structural.Schema, depth int) int64 {
	if s == nil || depth > 64 {
		return 1
	}
	if s.IntOrString {
		return minNumberSize
	}
	switch s.Type {
	case "string":
		return minStringSize
	case "boolean":
		return minBoolSize
	case "integer", "number":
		return minNumberSize
	case "object":
		n := int64(2)
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil && p.Default == nil {
				n += int64(len(name)) + minSize(p, depth+1) + 4
			}
		}
		return n
	}
	return 2
}

// maxItems is how many items a list of s can hold in one request.
func maxItems(s *structural.Schema) int64 {
	if s.MaxItems != nil {
		return max(*s.MaxItems, 0)
	}
	return (maxRequestBytes - 2) / (minSize(s.Items, 0) + 1)
}

// maxProperties is how many values a map of s can hold in one request.
func maxProperties(s *structural.Schema) int64 {
	if s.MaxProperties != nil {
		return max(*s.MaxProperties, 0)
	}
	return (maxRequestBytes - 2) / (minSize(s.AdditionalProperties, 0) + 6)
}

// maxSize is the size estimate of a value of s: a string's length, a
// list's items, a map's entries.
func maxSize(s *structural.Schema) int64 {
	switch {
	case s == nil:
		return maxRequestBytes
	case s.Type == "string" && s.MaxLength != nil:
		// A string of maxLength characters may take four bytes each.
		return max(*s.MaxLength, 0) * 4
	case s.Type == "string" && len(s.Enum) > 0:
		longest := 0
		for _, e := range s.Enum {
			longest = max(longest, len(e.Str))
		}
		return int64(longest)
	case s.Type == "string" || s.IntOrString:
		return maxRequestBytes - 2
	case s.Type == "array":
		return maxItems(s)
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil:
		return maxProperties(s)
	}
	return maxRequestBytes
}

// sizes answers cel-go's cost estimator with the sizes the schema allows
// at a rule's self (and oldSelf) and below, or, with fixed set, with the
// sizes fixed declares (a device selector's device).
type sizes struct {
	self  *structural.Schema
	fixed func(path []string) *celchecker.SizeEstimate
}

// EstimateSize implements celchecker.CostEstimator.
func (z sizes) EstimateSize(element celchecker.AstNode) *celchecker.SizeEstimate {
	return z.estimatePath(element.Path())
}

// estimatePath is the size the schema allows at a path from self or
// oldSelf ("self", "spec", "@items"), nil when there is no path. As the
// real estimator, it takes the path's first step to be self whatever it
// names: an index into a list that is no path of self (["@items"]) is
// given the size of self.
func (z sizes) estimatePath(path []string) *celchecker.SizeEstimate {
	if len(path) == 0 {
		return nil
	}
	if z.fixed != nil {
		return z.fixed(path)
	}
	s := z.self
	for _, p := range path[1:] {
		if s == nil {
			return nil
		}
		switch p {
		case "@items":
			s = s.Items
		case "@values":
			s = s.AdditionalProperties
		case "@keys":
			return &celchecker.SizeEstimate{Min: 0, Max: maxRequestBytes - 2}
		default:
			if c, ok := s.Properties[p]; ok {
				s = c
			} else {
				s = s.AdditionalProperties
			}
		}
	}
	if s == nil {
		return nil
	}
	return &celchecker.SizeEstimate{Min: 0, Max: uint64(maxSize(s))}
}

// multiply is a*b, saturating.
func multiply(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// costMessage is the real server's refusal of a cost over limit.
func costMessage(what string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, factor)
}
