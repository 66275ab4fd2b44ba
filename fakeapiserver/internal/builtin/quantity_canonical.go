package builtin

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Quantities are stored and served as the real server's
// resource.Quantity serializes them: the string a client sent when it is
// already in canonical form, otherwise the canonical form of its value
// ("1000m" is "1", "1024Mi" "1Gi", 0.5 "500m"). The rules follow the
// apimachinery parser's: a value is rounded up to the nanounit, a
// binary-suffixed value below 1024 or not an integer is shown in decimal,
// and a decimal one with the largest suffix that leaves an integer whose
// exponent is a multiple of three.

// quantityFormat is how a quantity is written: decimal suffixes (k, M,
// m...), binary ones (Ki, Mi...) or a decimal exponent (e3).
type quantityFormat int

const (
	decimalSI quantityFormat = iota
	binarySI
	decimalExponent
)

// decimalSuffixes maps a power of ten to its suffix.
var decimalSuffixes = map[int]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}

// binarySuffixes are the suffixes of 1024^0 .. 1024^6.
var binarySuffixes = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// scannedQuantity is a quantity string split as the real parser splits
// it: sign, integer digits without leading zeros ("0" when none), the
// fraction's digits and the suffix.
type scannedQuantity struct {
	negative           bool
	num, denom, suffix string
}

// scanQuantity splits s, or returns false when it is not a quantity.
func scanQuantity(s string) (scannedQuantity, bool) {
	var q scannedQuantity
	pos := 0
	if pos < len(s) && (s[0] == '-' || s[0] == '+') {
		q.negative = s[0] == '-'
		pos++
	}
	for pos < len(s) && s[pos] == '0' {
		pos++
	}
	start := pos
	for pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
		pos++
	}
	q.num = s[start:pos]
	if q.num == "" {
		q.num = "0"
	}
	if pos < len(s) && s[pos] == '.' {
		pos++
		start = pos
		for pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
			pos++
		}
		q.denom = s[start:pos]
	}
	q.suffix = s[pos:]
	return q, true
}

// interpretSuffix returns a suffix's base (10 or 2), exponent and format.
func interpretSuffix(suffix string) (base, exponent int, format quantityFormat, ok bool) {
	for e, s := range decimalSuffixes {
		if s == suffix {
			return 10, e, decimalSI, true
		}
	}
	for i, s := range binarySuffixes[1:] {
		if s == suffix {
			return 2, 10 * (i + 1), binarySI, true
		}
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		e, err := strconv.ParseInt(suffix[1:], 10, 32)
		if err == nil {
			return 10, int(e), decimalExponent, true
		}
	}
	return 0, 0, 0, false
}

// canonicalQuantity returns the string the real server serves for the
// quantity s, and false when s is not one (it is then left to the
// validators). milli rounds the value up to the milliunit first, as the
// defaulting of a core/v1 resource list does.
func canonicalQuantity(s string, milli bool) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return s, true
	}
	q, ok := scanQuantity(s)
	if !ok || s == "" {
		return "", false
	}
	base, exponent, format, ok := interpretSuffix(q.suffix)
	if !ok {
		return "", false
	}
	keep, scale, small := fastPath(q, exponent, format)
	if small && milli && scale < -3 {
		keep = false
	}
	if keep {
		return s, true
	}
	v, ok := new(big.Rat).SetString(q.num + "." + q.denom + "0")
	if !ok {
		return "", false
	}
	pow := new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(abs(int64(exponent)))), nil)
	if exponent < 0 {
		v.Quo(v, new(big.Rat).SetInt(pow))
	} else {
		v.Mul(v, new(big.Rat).SetInt(pow))
	}
	v = roundUp(v, 9)
	if !small {
		if format == binarySI && v.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0 {
			v.SetInt64(math.MaxInt64)
		}
		if format == binarySI && v.Sign() > 0 && v.Cmp(big.NewRat(1, 1)) < 0 {
			format = decimalSI
		}
	}
	if milli {
		v = roundUp(v, 3)
	}
	if q.negative {
		v.Neg(v)
	}
	return formatQuantity(v, format), true
}

// fastPath tells what the real parser's int64 path does with q: whether
// it takes it (small), the value's decimal scale there, and whether it
// keeps the string as sent (keep), which it does when the string is
// already canonical.
func fastPath(q scannedQuantity, exponent int, format quantityFormat) (keep bool, scale int, small bool) {
	shifted := q.num + q.denom
	switch format {
	case binarySI:
		if len(q.denom) > 0 || 15-len(q.num)-int(float32(exponent)*3/10)-1 < 0 {
			return false, 0, false
		}
		value, err := strconv.ParseInt(shifted, 10, 64)
		if err != nil || value > math.MaxInt64>>exponent {
			return false, 0, false
		}
		return value&0x07 != 0, 0, true
	default:
		if 18-len(q.num)-len(q.denom) < 0 {
			return false, 0, false
		}
		scale = exponent - len(q.denom)
		if scale < -9 {
			return false, 0, false
		}
		if _, err := strconv.ParseInt(shifted, 10, 64); err != nil {
			return false, 0, false
		}
		return scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0', scale, true
	}
}

// roundUp rounds a non-negative v up to a multiple of 10^-digits.
func roundUp(v *big.Rat, digits int) *big.Rat {
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil)
	n := new(big.Int).Mul(v.Num(), unit)
	quo, rem := new(big.Int).QuoRem(n, v.Denom(), new(big.Int))
	if rem.Sign() != 0 {
		quo.Add(quo, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(quo, unit)
}

// formatQuantity writes a value (a multiple of 10^-9) in format as the
// real server's canonical form does.
func formatQuantity(v *big.Rat, format quantityFormat) string {
	if v.Sign() == 0 {
		return "0"
	}
	if format == binarySI {
		if v.IsInt() && v.Num().CmpAbs(big.NewInt(1024)) >= 0 {
			amount, k := new(big.Int).Set(v.Num()), 0
			r := new(big.Int)
			for {
				q, m := new(big.Int).QuoRem(amount, big.NewInt(1024), r)
				if m.Sign() != 0 {
					break
				}
				amount, k = q, k+1
			}
			suffix := ""
			if k < len(binarySuffixes) {
				suffix = binarySuffixes[k]
			}
			return amount.String() + suffix
		}
		format = decimalSI
	}
	amount := new(big.Int).Quo(new(big.Int).Mul(v.Num(), big.NewInt(1_000_000_000)), v.Denom())
	exponent := -9
	ten, r := big.NewInt(10), new(big.Int)
	for {
		q, m := new(big.Int).QuoRem(amount, ten, r)
		if m.Sign() != 0 {
			break
		}
		amount, exponent = q, exponent+1
	}
	for exponent%3 != 0 {
		amount.Mul(amount, ten)
		exponent--
	}
	if format == decimalExponent {
		if exponent == 0 {
			return amount.String()
		}
		return amount.String() + "e" + strconv.Itoa(exponent)
	}
	// A power beyond the suffixes (past E) gets none, as on the real server.
	return amount.String() + decimalSuffixes[exponent]
}
