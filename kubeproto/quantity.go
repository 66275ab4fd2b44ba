package kubeproto

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// The real server's three refusals of a quantity, word for word.
var (
	errQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	errQuantitySuffix  = errors.New("unable to parse quantity's suffix")
)

// quantityFormat is how a quantity was written and is printed.
type quantityFormat uint8

const (
	decimalExponent quantityFormat = iota // 12e6
	binarySI                              // 12Mi
	decimalSI                             // 12M
)

// decimalSuffixes are the decimal SI suffixes by power of ten.
var decimalSuffixes = map[int64]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}

// binarySuffixes are the binary suffixes by power of 1024.
var binarySuffixes = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// canonicalQuantity returns the string a real server stores and prints
// for the quantity s: resource.ParseQuantity followed by String. A
// quantity already written in a form that parser considers canonical is
// kept as written ("+1", "01", "1k"); any other is rewritten ("1000" →
// "1k", "0.5" → "500m", "1.5Ki" → "1536"). Values are rounded up to
// nanounits and binary ones capped at 2^63-1, as there.
func canonicalQuantity(s string) (string, error) {
	if s == "" {
		return "", errQuantityFormat
	}
	if s == "0" {
		return s, nil
	}
	positive, value, num, denom, suf, err := splitQuantity(s)
	if err != nil {
		return "", err
	}
	base, exponent, format, ok := quantitySuffix(suf)
	if !ok {
		return "", errQuantitySuffix
	}
	if out, done, err := fastQuantity(s, positive, num, denom, base, exponent, format); done || err != nil {
		return out, err
	}
	return slowQuantity(value, base, exponent, format)
}

// fastQuantity is the parser's int64 path; done reports whether it
// applied.
func fastQuantity(s string, positive bool, num, denom string, base, exponent int64, format quantityFormat) (string, bool, error) {
	precision, scale, mantissa := int64(0), int64(0), int64(1)
	switch format {
	case decimalExponent, decimalSI:
		scale = exponent
		precision = 18 - int64(len(num)+len(denom))
	case binarySI:
		if exponent >= 0 && len(denom) == 0 {
			mantissa <<= uint64(exponent)
			precision = 15 - int64(len(num)) - int64(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	}
	if precision < 0 {
		return "", false, nil
	}
	scale -= int64(len(denom))
	if scale < -9 {
		return "", false, nil
	}
	shifted := num + denom
	v, err := strconv.ParseInt(shifted, 10, 64)
	if err != nil {
		return "", true, errQuantityNumeric
	}
	result, ok := mulInt64(v, mantissa)
	if !ok {
		return "", false, nil
	}
	if !positive {
		result = -result
	}
	switch format {
	case binarySI:
		if exponent%10 == 0 && v&0x07 != 0 {
			return s, true, nil
		}
	default:
		if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
			return s, true, nil
		}
	}
	return formatQuantity(big.NewInt(result), scale, format), true, nil
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 || a == 1 || b == 1 {
		return a * b, true
	}
	c := a * b
	return c, c/b == a && !(a == -1 && b == -1<<63) && !(b == -1 && a == -1<<63)
}

// slowQuantity is the parser's arbitrary-precision path.
func slowQuantity(value string, base, exponent int64, format quantityFormat) (string, error) {
	intPart, frac, _ := strings.Cut(value, ".")
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return "", errQuantityNumeric
	}
	e := -int64(len(frac))
	if base == 10 {
		e += exponent
	} else {
		u.Lsh(u, uint(exponent))
	}
	neg := u.Sign() < 0
	u.Abs(u)
	if u.Sign() != 0 && e < -9 {
		u, e = roundUpToNano(u, e), -9
	}
	if format == binarySI {
		if cmpScaled(u, e, new(big.Int).SetUint64(1<<63-1)) > 0 {
			u, e = new(big.Int).SetUint64(1<<63-1), 0
		}
		if u.Sign() > 0 && cmpScaled(u, e, big.NewInt(1)) < 0 {
			format = decimalSI
		}
	}
	if neg {
		u.Neg(u)
	}
	return formatQuantity(u, e, format), nil
}

// cmpScaled compares |u|·10^e with n ≥ 0.
func cmpScaled(u *big.Int, e int64, n *big.Int) int {
	abs := new(big.Int).Abs(u)
	switch {
	case abs.Sign() == 0:
		return -n.Sign()
	case e > int64(len(n.String()))+1:
		return 1
	case e >= 0:
		return abs.Mul(abs, pow10(e)).Cmp(n)
	}
	return abs.Cmp(new(big.Int).Mul(n, pow10(-e)))
}

// roundUpToNano rounds u·10^e (e < -9, u > 0) away from zero to a
// multiple of 10^-9 and returns the new unscaled value at scale -9.
func roundUpToNano(u *big.Int, e int64) *big.Int {
	d := -9 - e
	if d > int64(len(u.String()))+1 {
		return big.NewInt(1)
	}
	q, r := new(big.Int).QuoRem(u, pow10(d), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func pow10(n int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)
}

// formatQuantity writes the canonical form of u·10^e: Quantity's
// CanonicalizeBytes.
func formatQuantity(u *big.Int, e int64, format quantityFormat) string {
	if u.Sign() == 0 {
		return "0"
	}
	if format == binarySI {
		switch {
		case cmpScaled(u, e, big.NewInt(1024)) < 0,
			e < 0 && new(big.Int).Rem(new(big.Int).Abs(u), pow10(-e)).Sign() != 0:
			format = decimalSI
		default:
			v := new(big.Int).Set(u)
			if e > 0 {
				v.Mul(v, pow10(e))
			} else if e < 0 {
				v.Quo(v, pow10(-e))
			}
			n := 0
			k := big.NewInt(1024)
			for m := new(big.Int); new(big.Int).Abs(v).Cmp(k) >= 0; n++ {
				q, r := new(big.Int).QuoRem(v, k, m)
				if r.Sign() != 0 {
					break
				}
				v = q
			}
			suffix := ""
			if n < len(binarySuffixes) {
				suffix = binarySuffixes[n]
			}
			return v.String() + suffix
		}
	}
	v := new(big.Int).Set(u)
	ten := big.NewInt(10)
	for m := new(big.Int); ; {
		q, r := new(big.Int).QuoRem(v, ten, m)
		if r.Sign() != 0 {
			break
		}
		v = q
		e++
	}
	for e%3 != 0 {
		v.Mul(v, ten)
		e--
	}
	if format == decimalSI {
		return v.String() + decimalSuffixes[e]
	}
	if e == 0 {
		return v.String()
	}
	return v.String() + "e" + strconv.FormatInt(e, 10)
}

// quantitySuffix interprets a suffix: base, exponent and format.
func quantitySuffix(s string) (base, exponent int64, format quantityFormat, ok bool) {
	for e, suf := range decimalSuffixes {
		if suf == s {
			return 10, e, decimalSI, true
		}
	}
	for i, suf := range binarySuffixes[1:] {
		if suf == s {
			return 2, int64(i+1) * 10, binarySI, true
		}
	}
	if len(s) > 1 && (s[0] == 'E' || s[0] == 'e') {
		parsed, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, decimalExponent, false
		}
		return 10, int64(int32(parsed)), decimalExponent, true
	}
	return 0, 0, decimalExponent, false
}

// splitQuantity scans sign, digits, fraction and suffix as the real
// parser does.
func splitQuantity(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	if str[0] == '-' || str[0] == '+' {
		positive = str[0] == '+'
		pos++
	}
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos >= end {
		return positive, "0", "0", "", "", nil
	}
	i := pos
	for i < end && str[i] >= '0' && str[i] <= '9' {
		i++
	}
	if i >= end {
		return positive, str, str[pos:], "", "", nil
	}
	num, pos = str[pos:i], i
	if num == "" {
		num = "0"
	}
	if str[pos] == '.' {
		pos++
		i = pos
		for i < end && str[i] >= '0' && str[i] <= '9' {
			i++
		}
		if i >= end {
			return positive, str, num, str[pos:], "", nil
		}
		denom, pos = str[pos:i], i
	}
	value = str[:pos]
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for pos < end && str[pos] >= '0' && str[pos] <= '9' {
		pos++
	}
	if pos < end {
		return false, "", "", "", "", errQuantityFormat
	}
	return positive, value, num, denom, str[suffixStart:], nil
}
