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
	d, ok := new(big.Int).SetString(q.num+q.denom, 10)
	if !ok {
		return "", false
	}
	v := decimal{mantissa: d, exp: -len(q.denom)}
	if base == 2 {
		v.mantissa.Lsh(v.mantissa, uint(exponent))
	} else {
		v.exp += exponent
	}
	v.roundUp(-9)
	if !small && format == binarySI {
		if v.cmpInt64(math.MaxInt64) > 0 {
			v = decimal{mantissa: big.NewInt(math.MaxInt64)}
		}
		if v.mantissa.Sign() > 0 && v.cmpInt64(1) < 0 {
			format = decimalSI
		}
	}
	if milli {
		v.roundUp(-3)
	}
	if q.negative {
		v.mantissa.Neg(v.mantissa)
	}
	return formatQuantity(v, format), true
}

// decimal is mantissa × 10^exp; the exponent is kept apart so that a
// quantity such as 1e222222223 costs no more than its digits.
type decimal struct {
	mantissa *big.Int
	exp      int
}

// roundUp rounds a non-negative d up (away from zero) to a multiple of
// 10^exp when it is finer.
func (d *decimal) roundUp(exp int) {
	if d.exp >= exp {
		return
	}
	k := exp - d.exp
	if d.mantissa.Sign() == 0 {
		d.exp = exp
		return
	}
	if k > len(d.mantissa.String()) {
		d.mantissa, d.exp = big.NewInt(1), exp
		return
	}
	q, r := new(big.Int).QuoRem(d.mantissa, pow10(k), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	d.mantissa, d.exp = q, exp
}

// cmpInt64 compares a non-negative d with n.
func (d decimal) cmpInt64(n int64) int {
	b := new(big.Int).SetInt64(n)
	if d.exp >= 0 {
		if d.exp > 20 {
			return d.mantissa.Sign()
		}
		return new(big.Int).Mul(d.mantissa, pow10(d.exp)).Cmp(b)
	}
	return d.mantissa.Cmp(new(big.Int).Mul(b, pow10(-d.exp)))
}

// pow10 is 10^k for a small k.
func pow10(k int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
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

// formatQuantity writes a value (a multiple of 10^-9) in format as the
// real server's canonical form does.
func formatQuantity(v decimal, format quantityFormat) string {
	if v.mantissa.Sign() == 0 {
		return "0"
	}
	if format == binarySI {
		// A binary value has no decimal exponent above 0 (its suffix is
		// a power of two) and at most nine digits below.
		if n, ok := v.integer(); ok && n.CmpAbs(big.NewInt(1024)) >= 0 {
			k, r := 0, new(big.Int)
			for k < len(binarySuffixes)-1 {
				q, m := new(big.Int).QuoRem(n, big.NewInt(1024), r)
				if m.Sign() != 0 {
					break
				}
				n, k = q, k+1
			}
			return n.String() + binarySuffixes[k]
		}
		format = decimalSI
	}
	amount, exponent := new(big.Int).Set(v.mantissa), v.exp
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

// integer returns d as an integer when it is one and has no exponent
// above 0.
func (d decimal) integer() (*big.Int, bool) {
	if d.exp > 0 {
		return nil, false
	}
	q, r := new(big.Int).QuoRem(d.mantissa, pow10(-d.exp), new(big.Int))
	return q, r.Sign() == 0
}
