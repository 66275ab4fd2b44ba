package api

import (
	"fmt"
	"math"
	"math/big"
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

// quantitySuffixes are the multipliers of the binary and decimal suffixes.
var quantitySuffixes = []struct {
	suffix string
	mult   *big.Rat
}{
	{"Ki", big.NewRat(1<<10, 1)}, {"Mi", big.NewRat(1<<20, 1)}, {"Gi", big.NewRat(1<<30, 1)},
	{"Ti", big.NewRat(1<<40, 1)}, {"Pi", big.NewRat(1<<50, 1)}, {"Ei", big.NewRat(1<<60, 1)},
	{"n", big.NewRat(1, 1e9)}, {"u", big.NewRat(1, 1e6)}, {"m", big.NewRat(1, 1e3)},
	{"k", big.NewRat(1e3, 1)}, {"M", big.NewRat(1e6, 1)}, {"G", big.NewRat(1e9, 1)},
	{"T", big.NewRat(1e12, 1)}, {"P", big.NewRat(1e15, 1)}, {"E", big.NewRat(1e18, 1)},
}

// ParseMilli parses a quantity ("0.5", "100m", "1Gi", "1e3") into
// thousandths, rounding up as the API server does, and saturating at
// math.MaxInt64.
func ParseMilli(q string) (int64, error) {
	s := strings.TrimSpace(q)
	mult := big.NewRat(1, 1)
	for _, sf := range quantitySuffixes {
		if rest, ok := strings.CutSuffix(s, sf.suffix); ok && rest != "" && !strings.ContainsAny(rest[len(rest)-1:], "eE") {
			s, mult = rest, sf.mult
			break
		}
	}
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
