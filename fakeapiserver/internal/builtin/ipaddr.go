package builtin

import (
	"net/netip"
	"strconv"
	"strings"
)

// IP addresses and CIDRs as the real server's strict validators read
// them. The real server first parses a value with a lenient parser (the
// one Go had before 1.17: the parts of an IPv4 address may carry leading
// zeros, no IPv6 zone), so that such a value is reported as having
// leading zeros rather than as no address at all.

// sloppyIPv4Max caps an IPv4 part while its digits are read, as the
// lenient parser does, so a long run of digits cannot overflow.
const sloppyIPv4Max = 0xFFFFFF

// sloppyIP parses s as the lenient parser does and returns the address
// with any leading zeros of its IPv4 parts removed.
func sloppyIP(s string) (netip.Addr, bool) {
	if s == "" || strings.ContainsRune(s, '%') {
		return netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a, true
	}
	head, tail := "", s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		head, tail = s[:i+1], s[i+1:]
	}
	parts := strings.Split(tail, ".")
	if len(parts) != 4 {
		return netip.Addr{}, false
	}
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		n := 0
		for _, c := range []byte(p) {
			if c < '0' || c > '9' {
				return netip.Addr{}, false
			}
			if n = n*10 + int(c-'0'); n >= sloppyIPv4Max {
				return netip.Addr{}, false
			}
		}
		if n > 255 {
			return netip.Addr{}, false
		}
		parts[i] = strconv.Itoa(n)
	}
	a, err := netip.ParseAddr(head + strings.Join(parts, "."))
	return a, err == nil
}

// ipString is an address as the real server prints one: an IPv4-mapped
// IPv6 address as its IPv4 form.
func ipString(a netip.Addr) string {
	return a.Unmap().String()
}

// ipProblems returns what is wrong with s as an IP address in canonical
// form (an IPAddress's name, a strict IP field).
func ipProblems(s string) []string { return ipFieldProblems(s, true) }

// legacyIPProblems returns what is wrong with s as an IP address of a
// field older than the strict rules (a pod's nameservers, host aliases):
// the strict rules without the canonical form.
func legacyIPProblems(s string) []string { return ipFieldProblems(s, false) }

func ipFieldProblems(s string, canonical bool) []string {
	a, ok := sloppyIP(s)
	if !ok {
		return []string{"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"}
	}
	var out []string
	strict, err := netip.ParseAddr(s)
	if err != nil {
		out = append(out, "must not have leading 0s")
	}
	if strict.Is4In6() {
		out = append(out, "must not be an IPv4-mapped IPv6 address")
	}
	if canonical && len(out) == 0 && s != ipString(a) {
		out = append(out, "must be in canonical form ("+strconv.Quote(ipString(a))+")")
	}
	return out
}

// sloppyCIDR parses s as the lenient parser does: an address, a slash and
// a prefix length that may carry leading zeros. It returns the masked
// prefix.
func sloppyCIDR(s string) (netip.Prefix, bool) {
	addr, bits, ok := strings.Cut(s, "/")
	if !ok || bits == "" || len(bits) > 8 {
		return netip.Prefix{}, false
	}
	a, ok := sloppyIP(addr)
	if !ok {
		return netip.Prefix{}, false
	}
	n, err := strconv.Atoi(bits)
	if err != nil || n < 0 || strings.ContainsAny(bits, "+-") {
		return netip.Prefix{}, false
	}
	if a.Is4In6() {
		// The lenient parser keeps such an address 16 bytes long.
		if n > 128 {
			return netip.Prefix{}, false
		}
		if n < 96 {
			return netip.Prefix{}, false
		}
		a, n = a.Unmap(), n-96
	}
	if n > a.BitLen() {
		return netip.Prefix{}, false
	}
	p, err := a.Prefix(n)
	return p, err == nil
}

// cidrProblems returns what is wrong with s as a CIDR in canonical form
// (a ServiceCIDR's ranges).
func cidrProblems(s string) []string { return cidrFieldProblems(s, true) }

// legacyCIDRProblems returns what is wrong with s as a CIDR of a field
// older than the strict rules (a Node's pod CIDRs): the strict rules
// without the canonical form.
func legacyCIDRProblems(s string) []string { return cidrFieldProblems(s, false) }

func cidrFieldProblems(s string, canonical bool) []string {
	p, ok := sloppyCIDR(s)
	if !ok {
		return []string{"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}
	}
	strict, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return []string{"must not have leading 0s in IP or prefix length"}
	case strict.Addr().Is4In6():
		return []string{"must not have an IPv4-mapped IPv6 address"}
	case strict.Addr() != strict.Masked().Addr():
		return []string{"must not have bits set beyond the prefix length"}
	}
	if canonical && s != p.String() {
		return []string{"must be in canonical form (" + strconv.Quote(p.String()) + ")"}
	}
	return nil
}

// cidrFamily returns 4 or 6 for a CIDR the lenient parser reads, and 0
// otherwise.
func cidrFamily(s string) int {
	p, ok := sloppyCIDR(s)
	switch {
	case !ok:
		return 0
	case p.Addr().Is4():
		return 4
	default:
		return 6
	}
}
