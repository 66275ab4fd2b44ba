package api

import (
	"math"
	"testing"
)

// TestParseMilli reads quantities of every suffix, whole and not, into
// thousandths, rounding up and saturating.
func TestParseMilli(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"250", 250000}, {"32", 32000}, {"10m", 10}, {"100m", 100}, {"0.5", 500},
		{"16Mi", 16 << 20 * 1000}, {"128Gi", 128 << 30 * 1000}, {"1Ki", 1024000}, {"2Pi", 2 << 50 * 1000},
		{"1k", 1e6}, {"3M", 3e9}, {"1G", 1e12}, {"1T", 1e15}, {"1P", 1e18},
		{"1n", 1}, {"1000000n", 1}, {"1000001n", 2}, {"1u", 1}, {"1500u", 2}, {"1e3", 1e6}, {" 7 ", 7000},
		{"1Ei", math.MaxInt64}, {"10E", math.MaxInt64}, {"9P", 9e18}, {"10P", math.MaxInt64},
		{"999999999999999999", math.MaxInt64}, {"9223372036854775", 9223372036854775000},
	} {
		got, err := ParseMilli(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseMilli(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-1", "abc", "1Xi", "m"} {
		if _, err := ParseMilli(bad); err == nil {
			t.Errorf("ParseMilli(%q): no error", bad)
		}
	}
}

// FuzzParseMilli checks that the integer path of ParseMilli gives what
// the exact big.Rat path gives, for any string.
func FuzzParseMilli(f *testing.F) {
	for _, s := range []string{"250", "16Mi", "10m", "1n", "1500u", "0.5", "1e3", "10P", "1Ei", "999999999999999999", "7Ki"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ferr := parseMilli(s, true)
		exact, eerr := parseMilli(s, false)
		if fast != exact || (ferr == nil) != (eerr == nil) {
			t.Fatalf("%q: fast %d, %v; exact %d, %v", s, fast, ferr, exact, eerr)
		}
	})
}

func BenchmarkParseMilli(b *testing.B) {
	for _, q := range []string{"128Gi", "0.5"} {
		b.Run(q, func(b *testing.B) {
			for range b.N {
				if _, err := ParseMilli(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
