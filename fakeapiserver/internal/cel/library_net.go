package cel

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The Kubernetes CEL types of the network libraries.
var (
	ipType   = cel.OpaqueType("net.IP")
	cidrType = cel.OpaqueType("net.CIDR")
	urlType  = cel.ObjectType("kubernetes.URL")
)

// netVal is an IP address, a CIDR or a URL as rules see them.
type netVal struct {
	typ    *types.Type
	addr   netip.Addr
	prefix netip.Prefix
	url    *url.URL
}

func (v netVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("network values cannot be converted")
}

func (v netVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.StringType:
		return types.String(v.String())
	case types.TypeType:
		return v.typ
	}
	return types.NewErr("type conversion error from '%s' to '%s'", v.typ.TypeName(), t.TypeName())
}

func (v netVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(netVal)
	if !ok || o.typ != v.typ {
		return types.MaybeNoSuchOverloadErr(other)
	}
	switch v.typ {
	case ipType:
		return types.Bool(v.addr == o.addr)
	case cidrType:
		return types.Bool(v.prefix == o.prefix)
	}
	return types.Bool(v.url.String() == o.url.String())
}

func (v netVal) Type() ref.Type { return v.typ }
func (v netVal) Value() any     { return v }

// String is the value as string() shows it.
func (v netVal) String() string {
	switch v.typ {
	case ipType:
		return v.addr.String()
	case cidrType:
		return v.prefix.String()
	}
	return v.url.String()
}

// parseIP reads an address as the real library: no zone, no
// IPv4-mapped IPv6.
func parseIP(raw string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(raw)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", raw, err)
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", raw)
	}
	if addr.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return addr, nil
}

func parseCIDR(raw string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(raw)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return p, nil
}

func parseURL(raw string) (*url.URL, error) {
	if _, err := url.ParseRequestURI(raw); err != nil {
		return nil, fmt.Errorf("URL parse error during conversion from string: %v", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("URL parse error during conversion from string: %v", err)
	}
	return u, nil
}

// fromString binds a constructor from a string.
func fromString(parse func(string) (ref.Val, error)) cel.OverloadOpt {
	return cel.UnaryBinding(func(arg ref.Val) ref.Val {
		s, ok := arg.(types.String)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		v, err := parse(string(s))
		if err != nil {
			return types.NewErr("%v", err)
		}
		return v
	})
}

// is binds isIP, isCIDR and isURL: whether the string parses.
func is(parse func(string) error) cel.OverloadOpt {
	return cel.UnaryBinding(func(arg ref.Val) ref.Val {
		s, ok := arg.(types.String)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return types.Bool(parse(string(s)) == nil)
	})
}

// on binds a member function of one network value.
func on(f func(v netVal) ref.Val) cel.OverloadOpt {
	return cel.UnaryBinding(func(arg ref.Val) ref.Val {
		v, ok := arg.(netVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(v)
	})
}

func ipVal(s string) (ref.Val, error) {
	a, err := parseIP(s)
	return netVal{typ: ipType, addr: a}, err
}

func cidrVal(s string) (ref.Val, error) {
	p, err := parseCIDR(s)
	return netVal{typ: cidrType, prefix: p}, err
}

func urlVal(s string) (ref.Val, error) {
	u, err := parseURL(s)
	return netVal{typ: urlType, url: u}, err
}

// contains binds containsIP and containsCIDR, which take a value or a
// string to parse.
func contains(parse func(string) (ref.Val, error), test func(p netip.Prefix, v netVal) bool) cel.OverloadOpt {
	return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
		c, ok := a.(netVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		if s, ok := b.(types.String); ok {
			v, err := parse(string(s))
			if err != nil {
				return types.NewErr("%v", err)
			}
			b = v
		}
		v, ok := b.(netVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(b)
		}
		return types.Bool(test(c.prefix, v))
	})
}

// netLibraries declares the Kubernetes ip, cidr and url libraries.
func netLibraries() []cel.EnvOption {
	str, boolean := cel.StringType, cel.BoolType
	member := func(name, id string, t, out *cel.Type, f func(netVal) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{t}, out, on(f)))
	}
	ipPred := func(name, id string, f func(netip.Addr) bool) cel.EnvOption {
		return member(name, id, ipType, boolean, func(v netVal) ref.Val { return types.Bool(f(v.addr)) })
	}
	urlPart := func(name, id string, f func(*url.URL) string) cel.EnvOption {
		return member(name, id, urlType, str, func(v netVal) ref.Val { return types.String(f(v.url)) })
	}
	return []cel.EnvOption{
		cel.Function("ip", cel.Overload("string_to_ip", []*cel.Type{str}, ipType, fromString(ipVal)),
			cel.MemberOverload("cidr_ip", []*cel.Type{cidrType}, ipType, on(func(v netVal) ref.Val { return netVal{typ: ipType, addr: v.prefix.Addr()} }))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical", []*cel.Type{str}, boolean, cel.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			a, err := parseIP(string(s))
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Bool(a.String() == string(s))
		}))),
		cel.Function("isIP", cel.Overload("is_ip", []*cel.Type{str}, boolean, is(func(s string) error { _, err := parseIP(s); return err }))),
		member("family", "ip_family", ipType, cel.IntType, func(v netVal) ref.Val {
			if v.addr.Is4() {
				return types.Int(4)
			}
			return types.Int(6)
		}),
		ipPred("isUnspecified", "ip_is_unspecified", netip.Addr.IsUnspecified),
		ipPred("isLoopback", "ip_is_loopback", netip.Addr.IsLoopback),
		ipPred("isLinkLocalMulticast", "ip_is_link_local_multicast", netip.Addr.IsLinkLocalMulticast),
		ipPred("isLinkLocalUnicast", "ip_is_link_local_unicast", netip.Addr.IsLinkLocalUnicast),
		ipPred("isGlobalUnicast", "ip_is_global_unicast", netip.Addr.IsGlobalUnicast),
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{str}, cidrType, fromString(cidrVal))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{str}, boolean, is(func(s string) error { _, err := parseCIDR(s); return err }))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{cidrType, str}, boolean, contains(ipVal, func(p netip.Prefix, v netVal) bool { return p.Contains(v.addr) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{cidrType, ipType}, boolean, contains(ipVal, func(p netip.Prefix, v netVal) bool { return p.Contains(v.addr) }))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{cidrType, str}, boolean, contains(cidrVal, containsPrefix)),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{cidrType, cidrType}, boolean, contains(cidrVal, containsPrefix))),
		member("prefixLength", "cidr_prefix_length", cidrType, cel.IntType, func(v netVal) ref.Val { return types.Int(v.prefix.Bits()) }),
		member("masked", "cidr_masked", cidrType, cidrType, func(v netVal) ref.Val { return netVal{typ: cidrType, prefix: v.prefix.Masked()} }),
		cel.Function("string",
			cel.Overload("ip_to_string", []*cel.Type{ipType}, str, on(func(v netVal) ref.Val { return types.String(v.String()) })),
			cel.Overload("cidr_to_string", []*cel.Type{cidrType}, str, on(func(v netVal) ref.Val { return types.String(v.String()) }))),
		cel.Function("url", cel.Overload("string_to_url", []*cel.Type{str}, urlType, fromString(urlVal))),
		cel.Function("isURL", cel.Overload("is_url_string", []*cel.Type{str}, boolean, is(func(s string) error { _, err := parseURL(s); return err }))),
		urlPart("getScheme", "url_get_scheme", func(u *url.URL) string { return u.Scheme }),
		urlPart("getHost", "url_get_host", func(u *url.URL) string { return u.Host }),
		urlPart("getHostname", "url_get_hostname", (*url.URL).Hostname),
		urlPart("getPort", "url_get_port", (*url.URL).Port),
		urlPart("getEscapedPath", "url_get_escaped_path", (*url.URL).EscapedPath),
		member("getQuery", "url_get_query", urlType, cel.MapType(str, cel.ListType(str)), func(v netVal) ref.Val {
			return types.DefaultTypeAdapter.NativeToValue(map[string][]string(v.url.Query()))
		}),
	}
}

// containsPrefix reports whether p holds all of v's network.
func containsPrefix(p netip.Prefix, v netVal) bool {
	return p.Bits() <= v.prefix.Bits() && p.Contains(v.prefix.Addr())
}
