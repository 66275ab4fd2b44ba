package validation

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Quantities (resources.limits, resources.requests, ...): the real server
// accepts a JSON string or a bare number and parses either as a quantity;
// these are its two refusals, word for word.
const (
	QuantityFormatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
	quantitySuffix      = "unable to parse quantity's suffix"
)

// quantityProblem returns why v is not a quantity, or "".
func quantityProblem(v *jsonv.Value) string {
	switch v.Kind {
	case jsonv.Null:
		return ""
	case jsonv.String, jsonv.Number:
		return parseQuantity(strings.TrimSpace(v.Str))
	}
	return QuantityFormatWrong
}

// parseQuantity checks s as a quantity the way the real server scans one:
// sign, digits, an optional fraction, then a suffix (binary Ki..Ei,
// decimal n..E, or an exponent e<int>).
func parseQuantity(s string) string {
	if s == "" {
		return QuantityFormatWrong
	}
	pos, end := 0, len(s)
	if s[0] == '-' || s[0] == '+' {
		pos++
	}
	for pos < end && s[pos] == '0' {
		pos++
	}
	if pos >= end {
		return ""
	}
	digits := func() {
		for pos < end && s[pos] >= '0' && s[pos] <= '9' {
			pos++
		}
	}
	digits()
	if pos >= end {
		return ""
	}
	if s[pos] == '.' {
		pos++
		digits()
		if pos >= end {
			return ""
		}
	}
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", s[pos]) >= 0 {
		pos++
	}
	if pos < end && (s[pos] == '-' || s[pos] == '+') {
		pos++
	}
	digits()
	if pos < end {
		return QuantityFormatWrong
	}
	if !quantitySuffixKnown(s[suffixStart:]) {
		return quantitySuffix
	}
	return ""
}

// quantitySuffixKnown reports whether suffix is one the real server
// interprets.
func quantitySuffixKnown(suffix string) bool {
	switch suffix {
	case "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E":
		return true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		_, err := strconv.ParseInt(suffix[1:], 10, 64)
		return err == nil
	}
	return false
}

// maxQuantityExponent bounds the decimal exponent QuantityValue computes
// with, so that "1e999999999" costs no more than its digits.
const maxQuantityExponent = 1000

// QuantityValue returns the exact value of the quantity s as the real
// server's parser reads it (rounded away from zero to the nanounit), or
// the real server's refusal of s. An exponent beyond ±1000 is refused
// too: the real parser accepts it, the fake server does not compute it.
func QuantityValue(s string) (*big.Rat, error) {
	if p := parseQuantity(s); p != "" {
		return nil, errors.New(p)
	}
	num, suffix := s, ""
	if i := strings.IndexFunc(s, func(r rune) bool { return strings.ContainsRune("eEinumkKMGTP", r) }); i >= 0 {
		num, suffix = s[:i], s[i:]
	}
	v, ok := new(big.Rat).SetString(strings.TrimPrefix(num, "+"))
	if !ok {
		return nil, errors.New(QuantityFormatWrong)
	}
	base, exp := int64(10), int64(0)
	switch suffix {
	case "n", "u", "m", "", "k", "M", "G", "T", "P", "E":
		exp = int64(3 * (strings.Index("num kMGTPE", cmp.Or(suffix, " ")) - 3))
	case "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		base, exp = 2, int64(10*(strings.Index("KMGTPE", suffix[:1])+1))
	default:
		exp, _ = strconv.ParseInt(suffix[1:], 10, 64)
	}
	if exp > maxQuantityExponent || exp < -maxQuantityExponent {
		return nil, fmt.Errorf("quantity exponent %d is beyond ±%d, which the fake server does not compute", exp, maxQuantityExponent)
	}
	pow := new(big.Int).Exp(big.NewInt(base), big.NewInt(max(exp, -exp)), nil)
	if exp < 0 {
		v.Quo(v, new(big.Rat).SetInt(pow))
	} else {
		v.Mul(v, new(big.Rat).SetInt(pow))
	}
	return RoundToNano(v), nil
}

// RoundToNano rounds v away from zero to a whole number of nanounits, as
// the real quantity parser rounds what it reads.
func RoundToNano(v *big.Rat) *big.Rat {
	nano := new(big.Rat).Mul(v, big.NewRat(1_000_000_000, 1))
	if nano.IsInt() {
		return v
	}
	q, r := new(big.Int).QuoRem(nano.Num(), nano.Denom(), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(int64(v.Sign())))
	}
	return new(big.Rat).SetFrac(q, big.NewInt(1_000_000_000))
}
