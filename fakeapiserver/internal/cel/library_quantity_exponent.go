package cel

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// maxRuleQuantityExponent bounds the decimal exponent ("1e5000") of a
// quantity a rule reads. The real parser takes any exponent (keeping its
// low 32 bits) and holds such a value as digits and a scale until a
// comparison or a sum aligns two scales; this library holds every value
// exactly, and 10^100000 is a 42 KB integer, made and compared in well
// under a millisecond, where the 32-bit range would ask for gigabytes (as
// it does of the real server at its first comparison).
const maxRuleQuantityExponent = 100_000

// errQuantityBeyond marks a quantity well formed but too large to hold.
var errQuantityBeyond = errors.New("beyond the exponents the fake server computes")

// quantityValue is s's exact value as the real parser reads it, rounded
// away from zero to nanounits: the shared parser's, and beyond its ±1000
// the decimal exponents up to maxRuleQuantityExponent.
func quantityValue(s string) (*big.Rat, error) {
	i := strings.IndexAny(s, "eE")
	if i < 0 || i == len(s)-1 {
		return validation.QuantityValue(s)
	}
	e, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		return validation.QuantityValue(s)
	}
	// The real parser keeps an exponent's low 32 bits.
	exp := int64(int32(e))
	mantissa := s[:i]
	if exp >= -1000 && exp <= 1000 {
		return validation.QuantityValue(mantissa + "e" + strconv.FormatInt(exp, 10))
	}
	v, err := validation.QuantityValue(mantissa)
	if err != nil {
		return nil, err
	}
	if exp > maxRuleQuantityExponent || exp < -maxRuleQuantityExponent {
		return nil, fmt.Errorf("quantity exponent %d: %w (±%d)", exp, errQuantityBeyond, maxRuleQuantityExponent)
	}
	return validation.RoundToNano(v.Mul(v, pow10(int(exp)))), nil
}

// isQuantityString reports whether the real parser reads s (a value too
// large for this library to hold is still one).
func isQuantityString(s string) error {
	if _, err := quantityValue(s); err != nil && !errors.Is(err, errQuantityBeyond) {
		return err
	}
	return nil
}
