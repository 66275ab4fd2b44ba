package builtin

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIPProblems checks the strict IP rules with the real server's words
// (the IPAddress rows of testdata/validation show more).
func TestIPProblems(t *testing.T) {
	for s, want := range map[string][]string{
		"10.0.0.1":       nil,
		"fd00::1":        nil,
		"010.0.0.1":      {"must not have leading 0s"},
		"10.0.0.0001":    {"must not have leading 0s"},
		"::ffff:1.2.3.4": {"must not be an IPv4-mapped IPv6 address"},
		"FD00::1":        {`must be in canonical form ("fd00::1")`},
		"fd00:0::1":      {`must be in canonical form ("fd00::1")`},
		"fe80::1%eth0":   {"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
		"10.0.0.256":     {"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
		"":               {"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
		"1.2.3":          {"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
	} {
		assert.Equal(t, want, ipProblems(s), "ipProblems(%q)", s)
	}
}

// TestCIDRProblems checks the strict CIDR rules and the IP family of a
// range.
func TestCIDRProblems(t *testing.T) {
	for s, want := range map[string][]string{
		"10.0.0.0/16":        nil,
		"fd00::/108":         nil,
		"10.0.0.1/16":        {"must not have bits set beyond the prefix length"},
		"010.0.0.0/16":       {"must not have leading 0s in IP or prefix length"},
		"10.0.0.0/016":       {"must not have leading 0s in IP or prefix length"},
		"::ffff:1.2.3.0/120": {"must not have an IPv4-mapped IPv6 address"},
		"FD00::/108":         {`must be in canonical form ("fd00::/108")`},
		"10.0.0.0/33":        {"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"},
		"10.0.0.0":           {"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"},
		"10.0.0.0/+8":        {"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"},
	} {
		assert.Equal(t, want, cidrProblems(s), "cidrProblems(%q)", s)
	}
	assert.Equal(t, 4, cidrFamily("010.1.0.0/16"))
	assert.Equal(t, 6, cidrFamily("fd00::/64"))
	assert.Equal(t, 0, cidrFamily("bad"))
}

// FuzzIPAndCIDR checks that whatever the input the parsers end, and that
// a value they accept is one the standard library reads back unchanged.
func FuzzIPAndCIDR(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "010.0.0.1", "::ffff:1.2.3.4", "fd00::/108", "10.0.0.0/016", "1.2.3.4/99999999999", "0000000000000000000001.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ipProblems(s) == nil {
			a, err := netip.ParseAddr(s)
			if err != nil || a.String() != s {
				t.Fatalf("ipProblems(%q) = nil, but ParseAddr gives %v, %v", s, a, err)
			}
		}
		if cidrProblems(s) == nil {
			p, err := netip.ParsePrefix(s)
			if err != nil || p.Masked().String() != s {
				t.Fatalf("cidrProblems(%q) = nil, but ParsePrefix gives %v, %v", s, p, err)
			}
		}
		cidrFamily(s)
	})
}
