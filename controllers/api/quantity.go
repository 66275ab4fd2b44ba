package api

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
)

// ResourceList maps a resource name ("cpu", "memory", "pods") to its
// quantity in the API's notation ("500m", "128Mi", "110").
type ResourceList map[string]string

// Milli returns the quantity of name in thousandths of its unit (cpu
// "500m" is 500; memory "1Ki" is 1024000), 0 when absent. A quantity that
// does not parse counts as 0 and is reported by the error.
func (l ResourceList) Milli(name string) (int64, error) {
	q, ok := l[name]
	if !ok {
		return 0, nil
	}
	return ParseMilli(q)
}

// quantitySuffix is a suffix's multiplier, and the same in thousandths
// as a whole multiplier (milliMul) or divisor (milliDiv) where it fits
// in an int64 (zero where it does not: exa).
type quantitySuffix struct {
	suffix             string
	mult               *big.Rat
	milliMul, milliDiv int64
}

// quantitySuffixes are the multipliers of the binary and decimal
// suffixes, tried in this order.
var quantitySuffixes = []quantitySuffix{
	{"Ki", big.NewRat(1<<10, 1), 1 << 10 * 1e3, 0}, {"Mi", big.NewRat(1<<20, 1), 1 << 20 * 1e3, 0},
	{"Gi", big.NewRat(1<<30, 1), 1 << 30 * 1e3, 0}, {"Ti", big.NewRat(1<<40, 1), 1 << 40 * 1e3, 0},
	{"Pi", big.NewRat(1<<50, 1), 1 << 50 * 1e3, 0}, {"Ei", big.NewRat(1<<60, 1), 0, 0},
	{"n", big.NewRat(1, 1e9), 0, 1e6}, {"u", big.NewRat(1, 1e6), 0, 1e3}, {"m", big.NewRat(1, 1e3), 1, 0},
	{"k", big.NewRat(1e3, 1), 1e6, 0}, {"M", big.NewRat(1e6, 1), 1e9, 0}, {"G", big.NewRat(1e9, 1), 1e12, 0},
	{"T", big.NewRat(1e12, 1), 1e15, 0}, {"P", big.NewRat(1e15, 1), 1e18, 0}, {"E", big.NewRat(1e18, 1), 0, 0},
}

// noSuffix is the multiplier of a bare number.
var noSuffix = quantitySuffix{mult: big.NewRat(1, 1), milliMul: 1e3}

// maxFastDigits is the longest whole number the fast path of ParseMilli
// reads: 18 digits always fit in an int64.
const maxFastDigits = 18

// ParseMilli parses a quantity ("0.5", "100m", "1Gi", "1e3") into
// thousandths, rounding up as the API server does, and saturating at
// math.MaxInt64. A whole number with an optional suffix ("250", "16Mi",
// "10m"), the common case, is computed in integers; anything else
// (fractions, exponents) exactly with big.Rat.
func ParseMilli(q string) (int64, error) { return parseMilli(q, true) }

// parseMilli is ParseMilli; fast false always takes the exact path, for
// a test to compare the two.
func parseMilli(q string, fast bool) (int64, error) {
	s := strings.TrimSpace(q)
	sf := noSuffix
	for _, cand := range quantitySuffixes {
		if rest, ok := strings.CutSuffix(s, cand.suffix); ok && rest != "" && !strings.ContainsAny(rest[len(rest)-1:], "eE") {
			s, sf = rest, cand
			break
		}
	}
	if v, ok := wholeNumber(s); ok && fast {
		switch {
		case sf.milliDiv > 0:
			return (v + sf.milliDiv - 1) / sf.milliDiv, nil
		case sf.milliMul > 0:
			hi, lo := bits.Mul64(uint64(v), uint64(sf.milliMul))
			if hi != 0 || lo > math.MaxInt64 {
				return math.MaxInt64, nil
			}
			return int64(lo), nil
		}
	}
	mult := sf.mult
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 {
		return 0, fmt.Errorf("quantity %q: not a non-negative number", q)
	}
	r.Mul(r, mult)
	r.Mul(r, big.NewRat(1000, 1))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if new(big.Rat).SetInt(n).Cmp(r) < 0 {
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() {
		return math.MaxInt64, nil
	}
	return n.Int64(), nil
}

// wholeNumber reads s as a whole number of at most maxFastDigits
// decimal digits, nothing else.
func wholeNumber(s string) (int64, bool) {
	if s == "" || len(s) > maxFastDigits {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// FormatMilli writes thousandths back in the API's notation: "500m", "2",
// or, with binary set, the largest exact binary suffix ("16Gi").
func FormatMilli(m int64, binary bool) string {
	if m%1000 != 0 {
		return fmt.Sprintf("%dm", m)
	}
	v := m / 1000
	if binary {
		for _, sf := range []struct {
			s string
			n int64
		}{{"Ei", 1 << 60}, {"Pi", 1 << 50}, {"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
			if v != 0 && v%sf.n == 0 {
				return fmt.Sprintf("%d%s", v/sf.n, sf.s)
			}
		}
	}
	return fmt.Sprintf("%d", v)
}
