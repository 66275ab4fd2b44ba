package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuantities(t *testing.T) {
	for in, want := range map[string]string{
		"1": "", "0": "", "-0": "", "+": "", ".5": "", "1.": "", "100m": "", "1Gi": "", "1e3": "", "1E-3": "", "1.5Ki": "", "0.000001n": "",
		"": QuantityFormatWrong, "abc": QuantityFormatWrong, "1.2.3": QuantityFormatWrong, "1 Gi": QuantityFormatWrong, "true": QuantityFormatWrong,
		"1Xi": QuantityFormatWrong, "1Ki5": quantitySuffix, "1ki": quantitySuffix, "1KiB": QuantityFormatWrong, "1mm": quantitySuffix, "e5": "", "-e5": "", "1e": quantitySuffix, "1e+": quantitySuffix,
	} {
		assert.Equal(t, want, parseQuantity(in), "%q", in)
	}
}
