package reflector

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAdvancesRV(t *testing.T) {
	for _, tc := range []struct {
		cur, next string
		want      bool
	}{
		{"", "5", true},
		{"5", "6", true},
		{"5", "5", true},
		{"6", "5", false},
		{"10", "9", false}, // numerically, not as strings
		{"9", "10", true},
		{"5", "", false},
		{"5", "x7", false}, // an opaque version never replaces a number
		{"x7", "3", true},  // an opaque resume point cannot be compared
		{"x7", "x8", true},
	} {
		assert.Equal(t, tc.want, advancesRV(tc.cur, tc.next), "advancesRV(%q, %q)", tc.cur, tc.next)
	}
}
