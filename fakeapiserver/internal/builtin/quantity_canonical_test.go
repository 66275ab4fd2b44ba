package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCanonicalQuantity checks quantities against what the real
// kube-apiserver v1.37.2 served for them as a container's CPU limit (a
// core/v1 resource list: rounded up to the milliunit); the input is the
// JSON the client sent.
func TestCanonicalQuantity(t *testing.T) {
	for _, tc := range []struct{ sent, want string }{
		{"\"1000m\"", "1"},
		{"\"1024Mi\"", "1Gi"},
		{"\"0.5\"", "500m"},
		{"\"500m\"", "500m"},
		{"\"100Mi\"", "100Mi"},
		{"\"1536Mi\"", "1536Mi"},
		{"\"1.5Gi\"", "1536Mi"},
		{"\"0.5Gi\"", "512Mi"},
		{"\"1Ki\"", "1Ki"},
		{"\"1000Ki\"", "1000Ki"},
		{"\"+1\"", "+1"},
		{"\"01\"", "01"},
		{"\".5\"", "500m"},
		{"\"1e3\"", "1e3"},
		{"\"1E3\"", "1E3"},
		{"\"1000E\"", "1"},
		{"\"1.5\"", "1500m"},
		{"\"0.1n\"", "1m"},
		{"\"1e-10\"", "1e-3"},
		{"\"2000\"", "2k"},
		{"\"1000000\"", "1M"},
		{"\"1100\"", "1100"},
		{"\"12e2\"", "1200"},
		{"\"1.0\"", "1"},
		{"\"1Gi\"", "1Gi"},
		{"\"8Gi\"", "8Gi"},
		{"\"1023Ki\"", "1023Ki"},
		{"\"0\"", "0"},
		{"\"0m\"", "0"},
		{"\"0Gi\"", "0"},
		{"\"100k\"", "100k"},
		{"\"1000k\"", "1M"},
		{"\"123456789\"", "123456789"},
		{"\"0.000001\"", "1m"},
		{"\"1u\"", "1m"},
		{"\"1500u\"", "2m"},
		{"\"2048\"", "2048"},
		{"\"1025\"", "1025"},
		{"\"1e21\"", "1e21"},
		{"\"3Ei\"", "3Ei"},
		{"\"7\"", "7"},
		{"\"1.\"", "1."},
		{"\"10.50\"", "10500m"},
		{"2", "2"},
		{"0.5", "500m"},
		{"1000", "1k"},
		{"1000.0", "1k"},
		{"1.5", "1500m"},
	} {
		v := parse(t, tc.sent)
		got, ok := canonicalQuantity(v.Str, true)
		assert.True(t, ok, tc.sent)
		assert.Equal(t, tc.want, got, tc.sent)
	}
	for _, bad := range []string{"", "x", "1Q", "1e", "--1"} {
		_, ok := canonicalQuantity(bad, false)
		assert.False(t, ok, bad)
	}
	// Outside resource lists nothing is rounded to the milliunit.
	got, ok := canonicalQuantity("1500u", false)
	assert.True(t, ok)
	assert.Equal(t, "1500u", got)
	got, _ = canonicalQuantity("0.1n", false)
	assert.Equal(t, "1n", got)
}

// FuzzCanonicalQuantity checks that any string either is refused or
// becomes a canonical form that is its own canonical form, without
// panicking.
func FuzzCanonicalQuantity(f *testing.F) {
	for _, s := range []string{"1000m", "1024Mi", "0.5", "1e3", "+1", "1.5Gi", "0.1n", "1000E", "12e2", ".5", "-1Ki", "1e-10"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, milli bool) {
		if len(s) > 64 {
			return
		}
		got, ok := canonicalQuantity(s, milli)
		if !ok {
			return
		}
		again, ok := canonicalQuantity(got, milli)
		if !ok || again != got {
			t.Fatalf("canonical %q of %q is not stable: %q %v", got, s, again, ok)
		}
	})
}
