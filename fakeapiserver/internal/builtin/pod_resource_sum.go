package builtin

import (
	"math/big"
	"slices"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// summedQuantity is a sum of quantities as the real server adds them:
// the value, and the format of the quantity it started from (which its
// canonical form is written in).
type summedQuantity struct {
	value  *big.Rat
	format quantityFormat
}

// String writes the sum in its canonical form, rounded up to the
// nanounit.
func (q summedQuantity) String() string {
	n := new(big.Rat).Mul(q.value, new(big.Rat).SetInt(pow10(9)))
	m, r := new(big.Int).QuoRem(n.Num(), n.Denom(), new(big.Int))
	if r.Sign() > 0 {
		m.Add(m, big.NewInt(1))
	}
	return formatQuantity(decimal{mantissa: m, exp: -9}, q.format)
}

// resourceSums maps resource names to sums.
type resourceSums map[string]summedQuantity

// add adds each quantity of list (requests or limits) to s.
func (s resourceSums) add(list *jsonv.Value) {
	for i := range list.Obj {
		m := &list.Obj[i]
		val, ok := quantityValue(&m.Value)
		if !ok {
			continue
		}
		cur, ok := s[m.Key]
		if !ok || cur.value.Sign() == 0 {
			s[m.Key] = summedQuantity{value: new(big.Rat).Add(val, ratOrZero(cur.value)), format: formatOf(m.Value.Str)}
			continue
		}
		s[m.Key] = summedQuantity{value: new(big.Rat).Add(cur.value, val), format: cur.format}
	}
}

// addSums adds each sum of o to s.
func (s resourceSums) addSums(o resourceSums) {
	for k, q := range o {
		cur, ok := s[k]
		if !ok || cur.value.Sign() == 0 {
			s[k] = summedQuantity{value: new(big.Rat).Add(q.value, ratOrZero(cur.value)), format: q.format}
			continue
		}
		s[k] = summedQuantity{value: new(big.Rat).Add(cur.value, q.value), format: cur.format}
	}
}

// max keeps in s the larger of its and o's sum of each resource.
func (s resourceSums) max(o resourceSums) {
	for k, q := range o {
		if cur, ok := s[k]; !ok || q.value.Cmp(cur.value) > 0 {
			s[k] = q
		}
	}
}

func ratOrZero(r *big.Rat) *big.Rat {
	if r == nil {
		return new(big.Rat)
	}
	return r
}

// formatOf is the format a quantity string is written in.
func formatOf(s string) quantityFormat {
	q, ok := scanQuantity(s)
	if !ok {
		return decimalSI
	}
	_, _, f, ok := interpretSuffix(q.suffix)
	if !ok {
		return decimalSI
	}
	return f
}

// aggregateContainerResources sums the containers' requests or limits
// (list) as the real server does for a pod: the regular and restartable
// init containers add up; a plain init container runs alone beside the
// restartable ones before it, and the pod needs the largest of those.
func aggregateContainerResources(spec *jsonv.Value, list string) resourceSums {
	total := resourceSums{}
	for _, c := range items(spec, "containers") {
		total.add(sub(sub(c, "resources"), list))
	}
	sidecars, inits := resourceSums{}, resourceSums{}
	for _, c := range items(spec, "initContainers") {
		own := resourceSums{}
		own.add(sub(sub(c, "resources"), list))
		if str(c, "restartPolicy") == "Always" {
			total.addSums(own)
			sidecars.addSums(own)
			inits.max(sidecars)
			continue
		}
		own.addSums(sidecars)
		inits.max(own)
	}
	total.max(inits)
	return total
}

// sortedQuantityKeys returns the resource names of s in order.
func sortedQuantityKeys(s resourceSums) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
