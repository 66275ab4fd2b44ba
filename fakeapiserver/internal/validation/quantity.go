package validation

import (
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
