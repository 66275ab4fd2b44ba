package builtin

import (
	"math/big"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// quantitySuffixes maps a quantity suffix to its multiplier.
var quantitySuffixes = map[string]*big.Rat{
	"":   big.NewRat(1, 1),
	"n":  big.NewRat(1, 1_000_000_000),
	"u":  big.NewRat(1, 1_000_000),
	"m":  big.NewRat(1, 1000),
	"k":  big.NewRat(1000, 1),
	"M":  big.NewRat(1_000_000, 1),
	"G":  big.NewRat(1_000_000_000, 1),
	"T":  new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(12), nil)),
	"P":  new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(15), nil)),
	"E":  new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)),
	"Ki": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 10)),
	"Mi": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 20)),
	"Gi": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 30)),
	"Ti": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 40)),
	"Pi": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 50)),
	"Ei": new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 60)),
}

// quantityValue returns the value of a resource quantity (a JSON string or
// number such as "100m", "1Gi", "1e3", 2), and false when v is not one.
func quantityValue(v *jsonv.Value) (*big.Rat, bool) {
	if v == nil || (v.Kind != jsonv.String && v.Kind != jsonv.Number) {
		return nil, false
	}
	s := strings.TrimSpace(v.Str)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || end == 0 && (s[end] == '+' || s[end] == '-')) {
		end++
	}
	num, suffix := s[:end], s[end:]
	r, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
	if !ok || num == "" {
		return nil, false
	}
	if mult, ok := quantitySuffixes[suffix]; ok {
		return r.Mul(r, mult), true
	}
	if suffix[0] != 'e' && suffix[0] != 'E' {
		return nil, false
	}
	exp, ok := new(big.Int).SetString(suffix[1:], 10)
	if !ok || !exp.IsInt64() || exp.Int64() > 1000 || exp.Int64() < -1000 {
		return nil, false
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs(exp.Int64())), nil)
	if exp.Sign() < 0 {
		return r.Quo(r, new(big.Rat).SetInt(pow)), true
	}
	return r.Mul(r, new(big.Rat).SetInt(pow)), true
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// sameQuantity reports whether two members of resource lists hold the
// same quantity; an absent one counts as zero.
func sameQuantity(a, b *jsonv.Value) bool {
	return quantityOrZero(a).Cmp(quantityOrZero(b)) == 0
}

// quantityOrZero is the value of a quantity, zero when absent or invalid.
func quantityOrZero(v *jsonv.Value) *big.Rat {
	if q, ok := quantityValue(v); ok {
		return q
	}
	return new(big.Rat)
}
