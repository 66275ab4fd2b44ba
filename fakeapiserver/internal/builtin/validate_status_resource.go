package builtin

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// A ResourceClaim's status writes (what the scheduler and the DRA
// drivers send): the allocation, the consumers it is reserved for and
// the allocated devices' status, checked as the real
// ValidateResourceClaimStatusUpdate and its declarative rules do.

// subdomainFormat is the regular expression the real server quotes for
// an RFC 1123 subdomain.
const subdomainFormat = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`

// lowerUUIDRE matches a lowercase UUID in 8-4-4-4-12 form.
var lowerUUIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// resourceClaimStatus checks a ResourceClaim's new status: each
// reservedFor entry complete and once by uid, none without an
// allocation nor added while the claim is being deleted; each device
// status one of an allocated device, once, with valid conditions, data
// and network data; an allocation that, once set, does not change, and a
// new one whose results and configs name the claim's requests.
func resourceClaimStatus(v *validator, m *meta.ObjectMeta, obj, old *jsonv.Value) {
	status, oldStatus := sub(obj, "status"), sub(old, "status")
	reserved := items(status, "reservedFor")
	uids := map[string]bool{}
	for i, r := range reserved {
		p := index("status.reservedFor", i)
		for _, k := range []string{"resource", "name", "uid"} {
			if str(r, k) == "" {
				v.required(p+"."+k, "")
			}
		}
		if uids[str(r, "uid")] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: p, Value: shownMembers(r, "apiGroup", "resource", "name", "uid")})
		}
		uids[str(r, "uid")] = true
	}
	alloc := present(status, "allocation")
	v.claimDeviceStatuses(items(status, "devices"), alloc)
	if len(reserved) > 0 {
		switch {
		case alloc == nil:
			v.forbidden("status.reservedFor", "may not be specified when `allocated` is not set")
		case m.DeletionTimestamp != nil && addsConsumer(reserved, items(oldStatus, "reservedFor")):
			v.forbidden("status.reservedFor", "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")
		}
	}
	oldAlloc := present(oldStatus, "allocation")
	switch {
	case alloc != nil && oldAlloc != nil:
		if !jsonv.Equal(*alloc, *oldAlloc) {
			v.invalidRaw("status.allocation", "null", "field cannot be modified once set")
		}
	case alloc != nil:
		v.allocationResult(alloc, claimRequestNames(sub(sub(obj, "spec"), "devices")))
	}
}

// addsConsumer reports a reservedFor entry not among the stored ones.
func addsConsumer(reserved, old []*jsonv.Value) bool {
	for _, r := range reserved {
		found := false
		for _, o := range old {
			if jsonv.Equal(*r, *o) {
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// claimRequestNames are the names a result or config may refer to: each
// request's, and "request/subrequest" for each of its firstAvailable.
func claimRequestNames(devices *jsonv.Value) map[string]bool {
	names := map[string]bool{}
	for _, r := range items(devices, "requests") {
		name := str(r, "name")
		names[name] = true
		for _, s := range items(r, "firstAvailable") {
			names[name+"/"+str(s, "name")] = true
		}
	}
	return names
}

// requestNameRef checks a reference to one of the claim's requests: at
// most two segments, each a DNS label, naming a request.
func (v *validator) requestNameRef(p, name string, names map[string]bool) {
	segments := strings.Split(name, "/")
	if len(segments) <= 2 {
		for _, s := range segments {
			v.problems(p, s, validation.LabelProblems(s))
		}
	}
	if len(segments) > 2 || !names[name] {
		v.invalid(p, name, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'")
	}
}

// allocationResult checks a new allocation: each result's request,
// driver, pool, device, binding conditions, tolerations and share id,
// each config's source, requests and opaque parameters, and the node
// selector.
func (v *validator) allocationResult(alloc *jsonv.Value, names map[string]bool) {
	const p = "status.allocation.devices"
	devices := sub(alloc, "devices")
	for i, r := range items(devices, "results") {
		rp := index(p+".results", i)
		v.requestNameRef(rp+".request", str(r, "request"), names)
		v.claimDriverName(rp+".driver", str(r, "driver"))
		v.claimPoolName(rp+".pool", str(r, "pool"))
		d := str(r, "device")
		v.problems(rp+".device", d, validation.LabelProblems(d))
		v.bindingConditions(rp, r)
		for j, t := range items(r, "tolerations") {
			v.claimToleration(index(rp+".tolerations", j), t)
		}
		if id := r.Get("shareID"); id != nil && id.Kind == jsonv.String && !lowerUUIDRE.MatchString(id.Str) {
			v.invalid(rp+".shareID", id.Str, "must be a lowercase UUID in 8-4-4-4-12 format")
		}
	}
	for i, c := range items(devices, "config") {
		cp := index(p+".config", i)
		switch s := str(c, "source"); s {
		case "":
			v.required(cp+".source", "")
		case "FromClaim", "FromClass":
		default:
			v.notSupported(cp+".source", s, "FromClaim", "FromClass")
		}
		seen := map[string]bool{}
		for j, name := range stringsOf(c, "requests") {
			v.requestNameRef(index(cp+".requests", j), name, names)
			if seen[name] {
				v.duplicate(index(cp+".requests", j), name)
			}
			seen[name] = true
		}
		opaque := present(c, "opaque")
		if opaque == nil {
			v.required(cp+".opaque", "")
			continue
		}
		if d := str(opaque, "driver"); d == "" {
			v.required(cp+".opaque.driver", "")
		} else {
			v.claimDriverName(cp+".opaque.driver", d)
		}
		v.rawObject(cp+".opaque.parameters", opaque.Get("parameters"))
	}
	if sel := present(alloc, "nodeSelector"); sel != nil {
		terms := items(sel, "nodeSelectorTerms")
		if len(terms) == 0 {
			v.required("status.allocation.nodeSelector.nodeSelectorTerms", "must have at least one node selector term")
		}
		for i, t := range terms {
			v.nodeSelectorTerm(index("status.allocation.nodeSelector.nodeSelectorTerms", i), t, false)
		}
	}
}

// claimDriverName checks a driver named in a claim's status as the
// declarative rules do: required, at most 63 characters, else a
// subdomain in any case.
func (v *validator) claimDriverName(p, name string) {
	switch {
	case name == "":
		v.required(p, "")
	case len(name) > 63:
		v.add(FieldError{Type: "FieldValueTooLong", Field: p, Detail: "may not be more than 63 characters"})
	case len(validation.SubdomainProblems(strings.ToLower(name))) > 0:
		v.invalid(p, name, validation.RegexMessage("an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", subdomainFormat, "Example.com"))
	}
}

// claimPoolName checks a pool named in a claim's status as the
// declarative rules do: required, at most 253 bytes, and each of its
// slash-separated segments (counted from 0) a subdomain of at most 253
// bytes.
func (v *validator) claimPoolName(p, name string) {
	if name == "" {
		v.required(p, "")
		return
	}
	if len(name) > 253 {
		v.add(FieldError{Type: "FieldValueTooLong", Field: p, Detail: "may not be more than 253 bytes"})
	}
	for i, s := range strings.Split(name, "/") {
		seg := "segment " + strconv.Itoa(i) + ": "
		switch {
		case s == "":
			v.invalid(p, name, seg+"must not be empty")
		case len(s) > 253:
			v.invalid(p, s, seg+"must be no more than 253 bytes")
		case len(validation.SubdomainProblems(s)) > 0:
			v.invalid(p, s, seg+validation.SubdomainProblems(s)[0])
		}
	}
}

// claimToleration checks a device toleration of an allocation result
// (its operator defaulted to Equal): a qualified key, an empty value for
// Exists and a label value for Equal, a known effect.
func (v *validator) claimToleration(p string, t *jsonv.Value) {
	if k := str(t, "key"); k != "" {
		v.problems(p+".key", k, qualifiedNameProblems(k))
	}
	val := str(t, "value")
	switch op := str(t, "operator"); op {
	case "Exists":
		if val != "" {
			v.invalid(p+".value", val, "must be empty for operator `Exists`")
		}
	case "Equal":
		v.problems(p+".value", val, labelValueProblems(val))
	case "":
		v.required(p+".operator", "")
	default:
		v.notSupported(p+".operator", op, "Equal", "Exists")
	}
	switch e := str(t, "effect"); e {
	case "", "NoExecute", "NoSchedule", "None":
	default:
		v.notSupported(p+".effect", e, "NoExecute", "NoSchedule", "None")
	}
}

// rawObject checks an embedded JSON value (opaque parameters, device
// data): set, and an object.
func (v *validator) rawObject(p string, raw *jsonv.Value) {
	switch {
	case raw == nil || raw.Kind == jsonv.Null:
		v.required(p, "")
	case raw.Kind != jsonv.Object:
		v.invalid(p, "<value omitted>", "must be a valid JSON object")
	}
}

// claimDeviceStatuses checks the status of each allocated device: one
// of the allocation's devices (by driver, pool, device and share id),
// listed once, with at most 8 valid conditions, object data and network
// data within its limits (ips unique interface addresses).
func (v *validator) claimDeviceStatuses(devices []*jsonv.Value, alloc *jsonv.Value) {
	allocated := map[[4]string]bool{}
	for _, r := range items(sub(alloc, "devices"), "results") {
		allocated[deviceKey(r)] = true
	}
	seen := map[[4]string]bool{}
	for i, d := range devices {
		p := index("status.devices", i)
		k := deviceKey(d)
		if !allocated[k] {
			v.invalidRaw(p, `{"Driver":`+strconv.Quote(k[0])+`,"Pool":`+strconv.Quote(k[1])+`,"Device":`+strconv.Quote(k[2])+`,"ShareID":`+strconv.Quote(k[3])+`}`, "must be an allocated device in the claim")
		}
		conds := items(d, "conditions")
		if len(conds) > 8 {
			v.tooMany(p+".conditions", len(conds), 8)
		}
		v.conditions(p+".conditions", conds)
		if data := d.Get("data"); data != nil && data.Kind != jsonv.Null {
			v.rawObject(p+".data", data)
		}
		if seen[k] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: p, Value: shownDeviceStatus(d)})
		}
		seen[k] = true
		if nd := present(d, "networkData"); nd != nil {
			v.networkData(p+".networkData", nd)
		}
	}
}

// dropDeallocatedDevices removes from a claim's status the devices the
// stored allocation held and the new one does not, as the real status
// strategy does before validating.
func dropDeallocatedDevices(status, old *jsonv.Value) {
	gone := map[[4]string]bool{}
	for _, r := range items(sub(sub(old, "allocation"), "devices"), "results") {
		gone[deviceKey(r)] = true
	}
	for _, r := range items(sub(sub(status, "allocation"), "devices"), "results") {
		delete(gone, deviceKey(r))
	}
	devices := status.Get("devices")
	if len(gone) == 0 || devices == nil || devices.Kind != jsonv.Array {
		return
	}
	kept := devices.Arr[:0]
	for _, d := range devices.Arr {
		if !gone[deviceKey(&d)] {
			kept = append(kept, d)
		}
	}
	devices.Arr = kept
}

// deviceKey identifies an allocated device: driver, pool, device and
// share id.
func deviceKey(d *jsonv.Value) [4]string {
	return [4]string{str(d, "driver"), str(d, "pool"), str(d, "device"), str(d, "shareID")}
}

// networkData checks a device's network data: an interface name of at
// most 256 bytes, a hardware address of at most 128, at most 16 ips,
// each an address in CIDR form, once.
func (v *validator) networkData(p string, nd *jsonv.Value) {
	if len(str(nd, "interfaceName")) > 256 {
		v.tooLong(p+".interfaceName", 256)
	}
	if len(str(nd, "hardwareAddress")) > 128 {
		v.tooLong(p+".hardwareAddress", 128)
	}
	ips := stringsOf(nd, "ips")
	if len(ips) > 16 {
		v.tooMany(p+".ips", len(ips), 16)
		return
	}
	seen := map[string]bool{}
	for i, ip := range ips {
		v.problems(index(p+".ips", i), ip, interfaceAddressProblems(ip))
		if seen[ip] {
			v.duplicate(index(p+".ips", i), ip)
		}
		seen[ip] = true
	}
}

// shownMembers shows the named members of obj that are set as the real
// server shows the versioned struct: JSON in that order, empty strings
// left out.
func shownMembers(obj *jsonv.Value, keys ...string) string {
	out := jsonv.NewObject()
	for _, k := range keys {
		if s := str(obj, k); s != "" {
			out.Set(k, jsonv.NewString(s))
		}
	}
	return string(jsonv.Marshal(out))
}

// shownDeviceStatus shows a device status as the real server shows the
// versioned struct: driver, pool and device, the share id when set, the
// conditions (null when none), then the data and network data when set.
func shownDeviceStatus(d *jsonv.Value) string {
	out := jsonv.NewObject()
	for _, k := range []string{"driver", "pool", "device"} {
		out.Set(k, jsonv.NewString(str(d, k)))
	}
	if id := d.Get("shareID"); id != nil && id.Kind == jsonv.String {
		out.Set("shareID", *id)
	}
	conds := jsonv.Value{Kind: jsonv.Null}
	if c := d.Get("conditions"); c != nil && c.Kind == jsonv.Array && len(c.Arr) > 0 {
		conds = *c
	}
	out.Set("conditions", conds)
	for _, k := range []string{"data", "networkData"} {
		if x := d.Get(k); x != nil && x.Kind != jsonv.Null {
			out.Set(k, *x)
		}
	}
	return string(jsonv.Marshal(out))
}

// interfaceAddressProblems returns what is wrong with an interface
// address: an IP and a prefix length, as the lenient CIDR parser reads
// them, in canonical form.
func interfaceAddressProblems(s string) []string {
	addr, bits, ok := strings.Cut(s, "/")
	a, ipOK := sloppyIP(addr)
	n, err := strconv.Atoi(bits)
	limit := 128
	if ipOK && a.Is4() {
		limit = 32
	}
	if !ok || !ipOK || err != nil || n < 0 || n > limit || bits == "" || (bits[0] < '0' || bits[0] > '9') {
		return []string{"must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"}
	}
	if canonical := ipString(a) + "/" + strconv.Itoa(n); canonical != s {
		return []string{"must be in canonical form (" + strconv.Quote(canonical) + ")"}
	}
	return nil
}
