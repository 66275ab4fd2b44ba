package builtin

import (
	"math/rand/v2"
	"net/netip"
	"strconv"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Node ports come from the real server's default range.
const (
	nodePortBase = 30000
	nodePortSize = 2768
)

// RangeFull is an allocator with nothing left to pick from: no cluster IP
// (ServiceIP) or no node port. The real registry fails such a write with
// a 500 InternalError whose message is Error (the Service's name is
// Service, filled by Write; a full node port range does not name it).
type RangeFull struct {
	ServiceIP bool
	Service   string
}

func (e RangeFull) Error() string {
	if e.ServiceIP {
		return "failed to allocate a serviceIP for Service " + strconv.Quote(e.Service) + ": range is full"
	}
	return "failed to allocate a nodePort: range is full"
}

// ServiceAllocator hands out Service cluster IPs from one IPv4 service
// CIDR and node ports from 30000-32767, as the real server's allocators
// do: a requested address is reserved if free and in range, others are
// chosen at random (from the upper part of the range first, the lower
// part being kept for requested ones), and everything a Service holds is
// released when it goes. It is safe for concurrent use.
type ServiceAllocator struct {
	cidr netip.Prefix

	// mu guards ips and ports, which map an allocated address or port to
	// the key of the Service holding it.
	mu    sync.Mutex
	ips   map[netip.Addr]string
	ports map[int]string
}

// NewServiceAllocator returns an allocator for the IPv4 CIDR cidr
// ("10.96.0.0/16").
func NewServiceAllocator(cidr string) (*ServiceAllocator, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, err
	}
	return &ServiceAllocator{cidr: p.Masked(), ips: map[netip.Addr]string{}, ports: map[int]string{}}, nil
}

// CIDR returns the service CIDR ("10.96.0.0/16").
func (a *ServiceAllocator) CIDR() string { return a.cidr.String() }

// FirstIP returns the first usable address of the range, the one the
// kubernetes Service gets.
func (a *ServiceAllocator) FirstIP() string { return a.cidr.Addr().Next().String() }

// Allocate fills a new Service's cluster IPs, IP families and node ports
// (spec is its spec, already defaulted) and reserves them for key
// ("namespace/name"), as the real registry does before validation: first
// clusterIPs is filled from clusterIP and the families are settled
// (initFamilies, whose errors come alone). A dry run reports the same errors and fills the
// placeholders the real server shows (the range's network address, ports
// past the range) without reserving anything. A range with nothing
// left to pick from is a RangeFull error, which the real server answers
// with a 500 rather than a 422. On error nothing is reserved.
func (a *ServiceAllocator) Allocate(key string, spec *jsonv.Value, dryRun bool) ([]FieldError, error) {
	if spec == nil {
		return nil, nil
	}
	normalizeClusterIPs(spec, nil)
	if errs := a.initFamilies(spec, nil); len(errs) > 0 {
		return errs, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var taken []func()
	errs, err := a.allocateLocked(key, spec, dryRun, &taken)
	if len(errs) > 0 || err != nil || dryRun {
		for _, undo := range taken {
			undo()
		}
	}
	return errs, err
}

// Update carries a Service's allocations over an update, as the
// registry does before validation: the cluster IPs of old (its stored
// spec) fill what spec leaves out, the families are settled (the same
// errors as Allocate's), a Service that was ExternalName gets cluster
// IPs, one that stays with cluster IPs keeps its stored ones reserved
// (validation refuses a change), node ports are reserved or picked for
// what spec now needs, and what it no longer uses is released. An
// ExternalName Service holds nothing. A full range is a RangeFull
// error, as for Allocate.
func (a *ServiceAllocator) Update(key string, spec, old *jsonv.Value, dryRun bool) ([]FieldError, error) {
	if spec == nil {
		return nil, nil
	}
	if old == nil {
		old = &jsonv.Value{Kind: jsonv.Object}
	}
	typ, oldTyp := str(spec, "type"), str(old, "type")
	patchAllocatedIPs(spec, old)
	if (typ == "NodePort" || typ == "LoadBalancer") && (oldTyp == "NodePort" || oldTyp == "LoadBalancer") {
		carryNodePorts(spec, old)
	}
	normalizeClusterIPs(spec, old)
	if errs := a.initFamilies(spec, old); len(errs) > 0 {
		return errs, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	before := a.heldLocked(key)
	if !dryRun {
		a.releaseLocked(key)
	}
	var taken []func()
	var errs []FieldError
	var err error
	if typ != "ExternalName" {
		if oldTyp == "ExternalName" || empty(old, "clusterIP") {
			errs, err = a.allocateLocked(key, spec, dryRun, &taken)
		} else {
			if !dryRun {
				for _, ip := range stringsOf(old, "clusterIPs") {
					if addr, err := netip.ParseAddr(ip); err == nil {
						a.ips[addr] = key
					}
				}
			}
			if typ == "NodePort" || typ == "LoadBalancer" {
				errs, err = a.nodePorts(key, spec, typ, dryRun, &taken)
			}
		}
	}
	if (len(errs) > 0 || err != nil) && !dryRun {
		for _, undo := range taken {
			undo()
		}
		a.restoreLocked(key, before)
	}
	return errs, err
}

// carryNodePorts fills the node ports (and the health check port) an
// update of a Service with node ports leaves out, as the real registry
// does: each port of spec without one gets the node port of old's port
// of the same name, unless spec's ports already use that node port.
func carryNodePorts(spec, old *jsonv.Value) {
	byName := map[string]jsonv.Value{}
	each(old, "ports", func(p *jsonv.Value) {
		if !empty(p, "nodePort") {
			byName[str(p, "name")] = p.Get("nodePort").Clone()
		}
	})
	used := map[string]bool{}
	each(spec, "ports", func(p *jsonv.Value) {
		if !empty(p, "nodePort") {
			used[p.Get("nodePort").Str] = true
		}
	})
	each(spec, "ports", func(p *jsonv.Value) {
		if !empty(p, "nodePort") {
			return
		}
		if np, ok := byName[str(p, "name")]; ok && !used[np.Str] {
			p.Set("nodePort", np)
		}
	})
	if empty(spec, "healthCheckNodePort") && !empty(old, "healthCheckNodePort") && needsHealthCheckPort(spec) && needsHealthCheckPort(old) {
		spec.Set("healthCheckNodePort", old.Get("healthCheckNodePort").Clone())
	}
}

// valueOr returns *v, or null for nil.
func valueOr(v *jsonv.Value) jsonv.Value {
	if v == nil {
		return jsonv.Value{}
	}
	return *v
}

// held is what one Service holds.
type held struct {
	ips   []netip.Addr
	ports []int
}

func (a *ServiceAllocator) heldLocked(key string) held {
	var h held
	for ip, owner := range a.ips {
		if owner == key {
			h.ips = append(h.ips, ip)
		}
	}
	for p, owner := range a.ports {
		if owner == key {
			h.ports = append(h.ports, p)
		}
	}
	return h
}

// restoreLocked makes key hold h again, but for what another Service
// took since.
func (a *ServiceAllocator) restoreLocked(key string, h held) {
	a.releaseLocked(key)
	for _, ip := range h.ips {
		if _, used := a.ips[ip]; !used {
			a.ips[ip] = key
		}
	}
	for _, p := range h.ports {
		if _, used := a.ports[p]; !used {
			a.ports[p] = key
		}
	}
}

// snapshot returns what key holds.
func (a *ServiceAllocator) snapshot(key string) held {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.heldLocked(key)
}

// restore makes key hold exactly h again.
func (a *ServiceAllocator) restore(key string, h held) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.restoreLocked(key, h)
}

// Release frees everything key holds.
func (a *ServiceAllocator) Release(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.releaseLocked(key)
}

func (a *ServiceAllocator) releaseLocked(key string) {
	for ip, owner := range a.ips {
		if owner == key {
			delete(a.ips, ip)
		}
	}
	for p, owner := range a.ports {
		if owner == key {
			delete(a.ports, p)
		}
	}
}

func (a *ServiceAllocator) allocateLocked(key string, spec *jsonv.Value, dryRun bool, taken *[]func()) ([]FieldError, error) {
	typ := str(spec, "type")
	if typ == "ExternalName" {
		return nil, nil
	}
	ip := str(spec, "clusterIP")
	switch {
	case ip == "None":
	case ip == "":
		ip = a.pickIP(key, dryRun, taken)
		if ip == "" {
			return nil, RangeFull{ServiceIP: true}
		}
	default:
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			return []FieldError{invalidValue("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}, nil
		}
		if !a.inRange(addr) {
			// The real server's dry-run allocator words this its own way.
			why := "the provided network does not match the current range"
			if dryRun {
				why = "the provided IP (" + ip + ") is not in the valid range. The range of valid IPs is " + a.cidr.String()
			}
			return []FieldError{invalidList("spec.clusterIPs", []string{ip}, "failed to allocate IP "+ip+": "+why)}, nil
		}
		if !dryRun {
			if _, used := a.ips[addr]; used {
				return []FieldError{invalidList("spec.clusterIPs", []string{ip}, "failed to allocate IP "+ip+": provided IP is already allocated")}, nil
			}
			a.ips[addr] = key
			*taken = append(*taken, func() { delete(a.ips, addr) })
		}
	}
	spec.Set("clusterIP", jsonv.NewString(ip))
	spec.Set("clusterIPs", stringArray(ip))
	if typ == "NodePort" || typ == "LoadBalancer" {
		return a.nodePorts(key, spec, typ, dryRun, taken)
	}
	return nil, nil
}

// inRange reports whether addr is a usable address of the range: in the
// CIDR, neither its network nor its broadcast address.
func (a *ServiceAllocator) inRange(addr netip.Addr) bool {
	if !a.cidr.Contains(addr) || addr == a.cidr.Addr() {
		return false
	}
	n := a.size()
	return n > 0 && addr != offsetAddr(a.cidr.Addr(), n+1)
}

// size is the number of usable addresses (network and broadcast
// excluded), capped to keep the arithmetic in an int.
func (a *ServiceAllocator) size() int {
	bits := 32 - a.cidr.Bits()
	if bits > 30 {
		bits = 30
	}
	n := 1<<bits - 2
	if n < 1 {
		return 0
	}
	return n
}

// pickIP chooses a free address: the upper band first (the lower sixteenth,
// 16 to 256 addresses, is kept for requested ones), then any.
func (a *ServiceAllocator) pickIP(key string, dryRun bool, taken *[]func()) string {
	if dryRun {
		return a.cidr.Addr().String()
	}
	n := a.size()
	lower := min(max(n/16, 16), 256)
	if lower >= n {
		lower = 0
	}
	for _, band := range [][2]int{{lower, n}, {0, lower}} {
		if band[1] <= band[0] {
			continue
		}
		start := rand.IntN(band[1] - band[0])
		for i := 0; i < band[1]-band[0]; i++ {
			off := band[0] + (start+i)%(band[1]-band[0])
			addr := offsetAddr(a.cidr.Addr(), off+1)
			if _, used := a.ips[addr]; !used {
				a.ips[addr] = key
				*taken = append(*taken, func() { delete(a.ips, addr) })
				return addr.String()
			}
		}
	}
	return ""
}

// offsetAddr returns base + n for an IPv4 address.
func offsetAddr(base netip.Addr, n int) netip.Addr {
	b := base.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += uint32(n)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// nodePorts reserves the requested node ports and picks the missing ones
// (and a LoadBalancer's health check port under the Local traffic policy).
// A port it cannot pick ends the allocation with RangeFull.
func (a *ServiceAllocator) nodePorts(key string, spec *jsonv.Value, typ string, dryRun bool, taken *[]func()) ([]FieldError, error) {
	if typ == "LoadBalancer" {
		if al := spec.Get("allocateLoadBalancerNodePorts"); al != nil && al.Kind == jsonv.Bool && !al.B {
			return nil, nil
		}
	}
	var errs []FieldError
	next := nodePortBase + nodePortSize
	portsArr := spec.Get("ports")
	if portsArr != nil && portsArr.Kind == jsonv.Array {
		for i := range portsArr.Arr {
			p := &portsArr.Arr[i]
			if p.Kind != jsonv.Object {
				continue
			}
			field := "spec.ports[" + strconv.Itoa(i) + "].nodePort"
			if np := p.Get("nodePort"); np != nil && np.Kind == jsonv.Number && np.Str != "0" {
				if e := a.reservePort(key, field, np.Str, dryRun, taken); e != nil {
					errs = append(errs, *e)
				}
				continue
			}
			next++
			port := next
			if !dryRun {
				if port = a.pickPort(key, taken); port == 0 {
					return errs, RangeFull{}
				}
			}
			p.Set("nodePort", number(int64(port)))
		}
	}
	if typ == "LoadBalancer" && str(spec, "externalTrafficPolicy") == "Local" {
		if hc := spec.Get("healthCheckNodePort"); hc != nil && hc.Kind == jsonv.Number && hc.Str != "0" {
			if e := a.reservePort(key, "spec.healthCheckNodePort", hc.Str, dryRun, taken); e != nil {
				errs = append(errs, *e)
			}
		} else {
			next++
			port := next
			if !dryRun {
				port = a.pickPort(key, taken)
			}
			spec.Set("healthCheckNodePort", number(int64(port)))
		}
	}
	return errs, nil
}

// reservePort reserves a requested port.
func (a *ServiceAllocator) reservePort(key, field, literal string, dryRun bool, taken *[]func()) *FieldError {
	port, err := strconv.Atoi(literal)
	if err != nil {
		e := invalidValue(field, literal, "must be a valid port number")
		return &e
	}
	if port < nodePortBase || port >= nodePortBase+nodePortSize {
		e := invalidNumber(field, int64(port), "provided port is not in the valid range. The range of valid ports is 30000-32767")
		return &e
	}
	// A dry run checks a requested port against the held ones (the real
	// server's does, while it leaves a requested cluster IP unchecked)
	// but reserves nothing.
	if owner, used := a.ports[port]; used && owner != key {
		e := invalidNumber(field, int64(port), "provided port is already allocated")
		return &e
	}
	if dryRun {
		return nil
	}
	if _, used := a.ports[port]; !used {
		a.ports[port] = key
		*taken = append(*taken, func() { delete(a.ports, port) })
	}
	return nil
}

// pickPort chooses a free node port at random, or 0 when none is left.
func (a *ServiceAllocator) pickPort(key string, taken *[]func()) int {
	start := rand.IntN(nodePortSize)
	for i := 0; i < nodePortSize; i++ {
		p := nodePortBase + (start+i)%nodePortSize
		if _, used := a.ports[p]; !used {
			a.ports[p] = key
			*taken = append(*taken, func() { delete(a.ports, p) })
			return p
		}
	}
	return 0
}
