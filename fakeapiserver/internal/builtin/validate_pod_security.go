package builtin

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The security contexts of a pod and of its containers, as the real pod
// validator checks them. Privileged containers are allowed, as on a
// server started with --allow-privileged (kind, kubeadm).

const (
	sysctlSegmentFmt = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
	sysctlFmt        = "(" + sysctlSegmentFmt + "[\\./])*" + sysctlSegmentFmt
	maxUnixID        = 2147483647
)

var sysctlRE = regexp.MustCompile("^" + sysctlFmt + "$")

// unixID reports a set user or group id outside 0 to 2^31-1.
func (v *validator) unixID(obj *jsonv.Value, k, field string) {
	if n, ok := integer(obj, k); ok {
		v.idRange(field, n)
	}
}

// runAs checks the user and group a security context runs as.
func (v *validator) runAs(p string, sc *jsonv.Value) {
	v.unixID(sc, "runAsUser", p+".runAsUser")
	v.unixID(sc, "runAsGroup", p+".runAsGroup")
}

func (v *validator) idRange(field string, n int64) {
	if n < 0 || n > maxUnixID {
		v.invalidRaw(field, strconv.FormatInt(n, 10), "must be between 0 and 2147483647, inclusive")
	}
}

// setString returns the string under k and whether it is set (a Go
// pointer that is not nil).
func setString(obj *jsonv.Value, k string) (string, bool) {
	s := obj.Get(k)
	if s == nil || s.Kind != jsonv.String {
		return "", false
	}
	return s.Str, true
}

// podSecurityContext checks a pod's security context.
func (v *validator) podSecurityContext(p string, spec *jsonv.Value) {
	sc := present(spec, "securityContext")
	if sc == nil {
		return
	}
	v.unixID(sc, "fsGroup", p+".fsGroup")
	v.runAs(p, sc)
	if groups := sc.Get("supplementalGroups"); groups != nil && groups.Kind == jsonv.Array {
		for i := range groups.Arr {
			if n, err := strconv.ParseInt(groups.Arr[i].Str, 10, 64); err == nil {
				v.idRange(index(p+".supplementalGroups", i), n)
			}
		}
	}
	v.sysctls(p+".sysctls", sc, spec)
	if pol, ok := setString(sc, "fsGroupChangePolicy"); ok && pol != "Always" && pol != "OnRootMismatch" {
		v.notSupported(p+".fsGroupChangePolicy", pol, "Always", "OnRootMismatch")
	}
	v.seccompProfile(p+".seccompProfile", present(sc, "seccompProfile"))
	v.windowsOptions(p, sc)
	v.appArmorProfile(p+".appArmorProfile", present(sc, "appArmorProfile"))
	if pol, ok := setString(sc, "supplementalGroupsPolicy"); ok && pol != "Merge" && pol != "Strict" {
		v.notSupported(p+".supplementalGroupsPolicy", pol, "Merge", "Strict")
	}
	if pol, ok := setString(sc, "seLinuxChangePolicy"); ok && pol != "MountOption" && pol != "Recursive" {
		v.notSupported(p+".seLinuxChangePolicy", pol, "MountOption", "Recursive")
	}
}

// sysctls checks a pod's sysctls: names in the kernel's format, each
// once, and none of a namespace the pod shares with its host.
func (v *validator) sysctls(p string, sc, spec *jsonv.Value) {
	seen := map[string]bool{}
	for i, s := range items(sc, "sysctls") {
		np := index(p, i) + ".name"
		name := str(s, "name")
		switch {
		case name == "":
			v.required(np, "")
		case len(name) > 253 || !sysctlRE.MatchString(name):
			v.invalid(np, name, "must have at most 253 characters and match regex ^"+sysctlFmt+"$")
		case seen[name]:
			v.duplicate(np, name)
		}
		seen[name] = true
		switch ns := sysctlNamespace(name); {
		case ns == "net" && isTrue(spec, "hostNetwork"):
			v.invalid(np, name, "may not be specified when 'hostNetwork' is true")
		case ns == "ipc" && isTrue(spec, "hostIPC"):
			v.invalid(np, name, "may not be specified when 'hostIPC' is true")
		}
	}
}

// ipcSysctls are the sysctls of the IPC namespace outside fs.mqueue.
var ipcSysctls = map[string]bool{
	"kernel.sem": true, "kernel.shmall": true, "kernel.shmmax": true, "kernel.shmmni": true,
	"kernel.shm_rmid_forced": true, "kernel.shm": true, "kernel.msgmax": true, "kernel.msgmnb": true,
	"kernel.msgmni": true, "kernel.msg": true,
}

// sysctlNamespace returns the kernel namespace a sysctl belongs to: "net",
// "ipc" or "" (not namespaced, or another). A name whose first separator
// is a slash has its dots and slashes swapped first.
func sysctlNamespace(name string) string {
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		name = strings.Map(func(r rune) rune {
			switch r {
			case '.':
				return '/'
			case '/':
				return '.'
			}
			return r
		}, name)
	}
	if i := strings.IndexByte(name, '*'); i >= 0 {
		name = name[:i]
	}
	switch {
	case ipcSysctls[name] || strings.HasPrefix(name, "fs.mqueue."):
		return "ipc"
	case strings.HasPrefix(name, "net."):
		return "net"
	}
	return ""
}

// seccompProfile checks a seccomp profile: its type, and a local profile
// exactly when the type is Localhost.
func (v *validator) seccompProfile(p string, sp *jsonv.Value) {
	if sp == nil {
		return
	}
	typ := str(sp, "type")
	switch typ {
	case "Localhost", "RuntimeDefault", "Unconfined":
	case "":
		v.required(p+".type", "type is required when seccompProfile is set")
	default:
		v.notSupported(p+".type", typ, "Localhost", "RuntimeDefault", "Unconfined")
	}
	local, set := setString(sp, "localhostProfile")
	switch {
	case typ == "Localhost" && !set:
		v.required(p+".localhostProfile", "must be set when seccomp type is Localhost")
	case typ == "Localhost":
		v.localDescendingPath(p+".localhostProfile", local)
	case set:
		v.invalidRaw(p+".localhostProfile", `{"Type":`+strconv.Quote(typ)+`,"LocalhostProfile":`+strconv.Quote(local)+`}`, "can only be set when seccomp type is Localhost")
	}
}

// localDescendingPath reports an absolute path or one that steps up.
func (v *validator) localDescendingPath(field, s string) {
	if path.IsAbs(s) {
		v.invalid(field, s, "must be a relative path")
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			v.invalid(field, s, "must not contain '..'")
			break
		}
	}
}

// appArmorProfile checks an AppArmor profile: its type, and a local
// profile exactly when the type is Localhost.
func (v *validator) appArmorProfile(p string, ap *jsonv.Value) {
	if ap == nil {
		return
	}
	local, set := setString(ap, "localhostProfile")
	switch typ := str(ap, "type"); typ {
	case "Localhost":
		switch {
		case !set:
			v.required(p+".localhostProfile", "must be set when AppArmor type is Localhost")
		case strings.TrimSpace(local) != local:
			v.invalid(p+".localhostProfile", local, "must not be padded with whitespace")
		case local == "":
			v.required(p+".localhostProfile", "must be set when AppArmor type is Localhost")
		}
		if len(local) > 4095 {
			v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: p + ".localhostProfile", Detail: "may not be more than 4095 bytes"})
		}
	case "RuntimeDefault", "Unconfined":
		if set {
			v.invalid(p+".localhostProfile", local, "can only be set when AppArmor type is Localhost")
		}
	case "":
		v.required(p+".type", "type is required when appArmorProfile is set")
	default:
		v.notSupported(p+".type", typ, "Localhost", "RuntimeDefault", "Unconfined")
	}
}

// containerSecurityContext checks a container's security context;
// hostUsers says whether the pod runs in the host's user namespace.
func (v *validator) containerSecurityContext(p string, c *jsonv.Value, hostUsers bool) {
	sc := present(c, "securityContext")
	if sc == nil {
		return
	}
	v.runAs(p, sc)
	if pm, ok := setString(sc, "procMount"); ok {
		if pm != "Default" && pm != "Unmasked" {
			v.notSupported(p+".procMount", pm, "Default", "Unmasked")
		}
		if hostUsers && pm == "Unmasked" {
			v.invalid(p+".procMount", pm, "`hostUsers` must be false to use `Unmasked`")
		}
	}
	v.seccompProfile(p+".seccompProfile", present(sc, "seccompProfile"))
	v.privilegeEscalation(p, sc)
	v.windowsOptions(p, sc)
	v.appArmorProfile(p+".appArmorProfile", present(sc, "appArmorProfile"))
}

// privilegeEscalation checks what a container that may not escalate its
// privileges cannot have: privileged mode, or CAP_SYS_ADMIN (one error,
// however often it is listed: the real server drops repeated errors).
func (v *validator) privilegeEscalation(p string, sc *jsonv.Value) {
	if ape, ok := setBool(sc, "allowPrivilegeEscalation"); !ok || ape {
		return
	}
	if privileged, _ := setBool(sc, "privileged"); privileged {
		v.invalidRaw(p, shownContainerSecurityContext(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true")
	}
	if slices.Contains(stringsOf(present(sc, "capabilities"), "add"), "CAP_SYS_ADMIN") {
		v.invalidRaw(p, shownContainerSecurityContext(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN")
	}
}
