package builtin

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// The Windows options of a pod's or container's security context (a
// GMSA credential spec by name or inline, the user to run as), and the
// HostProcess rules that tie a pod's containers together. The real
// validator checks both whatever spec.os says.

const (
	// maxGMSACredentialSpec is the longest inline GMSA credential spec,
	// 64 KiB.
	maxGMSACredentialSpec = 64 * 1024
	// maxRunAsUserNameDomain is one more than the longest domain of a
	// DOMAIN\USER runAsUserName.
	maxRunAsUserNameDomain = 256
	// maxRunAsUserNameUser is the longest user of a runAsUserName.
	maxRunAsUserNameUser = 104
)

var (
	controlCharRE = regexp.MustCompile(`[[:cntrl:]]`)
	// A NetBIOS domain: 1 to 15 characters, none of \ / : * ? " < > |,
	// and no leading dot.
	netBIOSDomainRE = regexp.MustCompile(`^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$`)
	// A DNS domain: dot-separated labels of letters, digits and dashes.
	dnsDomainRE      = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)
	badUserCharRE    = regexp.MustCompile(`["/\\:;|=,\+\*\?<>@\[\]]`)
	dotsOrSpacesRE   = regexp.MustCompile(`^[\. ]+$`)
	userCharsMessage = `runAsUserName's User cannot contain the following characters: "/\:;|=,+*?<>@[]`
)

// invalidJSON reports a string value the real server shows through
// encoding/json (it holds a pointer): control characters as \u00XX, and
// <, > and & escaped.
func (v *validator) invalidJSON(field, value, detail string) {
	b, _ := json.Marshal(value)
	v.invalidRaw(field, string(b), detail)
}

// windowsOptions checks the windowsOptions of the security context sc
// (a pod's or a container's) at path p.
func (v *validator) windowsOptions(p string, sc *jsonv.Value) {
	wo := present(sc, "windowsOptions")
	if wo == nil {
		return
	}
	p += ".windowsOptions"
	if name, ok := setString(wo, "gmsaCredentialSpecName"); ok {
		for _, msg := range validation.SubdomainProblems(name) {
			v.invalidJSON(p+".gmsaCredentialSpecName", name, msg)
		}
	}
	if spec, ok := setString(wo, "gmsaCredentialSpec"); ok {
		switch {
		case spec == "":
			v.invalidJSON(p+".gmsaCredentialSpec", spec, "gmsaCredentialSpec cannot be an empty string")
		case len(spec) > maxGMSACredentialSpec:
			v.invalidJSON(p+".gmsaCredentialSpec", spec, "gmsaCredentialSpec size must be under 64 KiB")
		}
	}
	if user, ok := setString(wo, "runAsUserName"); ok {
		for _, msg := range runAsUserNameProblems(user) {
			v.invalidJSON(p+".runAsUserName", user, msg)
		}
	}
}

// runAsUserNameProblems returns what is wrong with a Windows user name,
// USER or DOMAIN\USER, in the real validator's order.
func runAsUserNameProblems(name string) []string {
	switch {
	case name == "":
		return []string{"runAsUserName cannot be an empty string"}
	case controlCharRE.MatchString(name):
		return []string{"runAsUserName cannot contain control characters"}
	case strings.Count(name, `\`) > 1:
		return []string{"runAsUserName cannot contain more than one backslash"}
	}
	var out []string
	domain, user, hasDomain := strings.Cut(name, `\`)
	if !hasDomain {
		domain, user = "", name
	}
	if len(domain) >= maxRunAsUserNameDomain {
		out = append(out, "runAsUserName's Domain length must be under "+strconv.Itoa(maxRunAsUserNameDomain)+" characters")
	}
	if hasDomain && !netBIOSDomainRE.MatchString(domain) && !dnsDomainRE.MatchString(domain) {
		out = append(out, "runAsUserName's Domain doesn't match the NetBios nor the DNS format")
	}
	switch {
	case user == "":
		out = append(out, "runAsUserName's User cannot be empty")
	case len(user) > maxRunAsUserNameUser:
		out = append(out, "runAsUserName's User length must not be longer than "+strconv.Itoa(maxRunAsUserNameUser)+" characters")
	}
	if dotsOrSpacesRE.MatchString(user) {
		out = append(out, "runAsUserName's User cannot contain only periods or spaces")
	}
	if badUserCharRE.MatchString(user) {
		out = append(out, userCharsMessage)
	}
	return out
}

// setBool returns the bool under k and whether it is set.
func setBool(obj *jsonv.Value, k string) (bool, bool) {
	b := obj.Get(k)
	if b == nil || b.Kind != jsonv.Bool {
		return false, false
	}
	return b.B, true
}

// hostProcess returns the windowsOptions.hostProcess of the security
// context under sc's owner obj, and whether it is set.
func hostProcess(obj *jsonv.Value) (bool, bool) {
	wo := present(present(obj, "securityContext"), "windowsOptions")
	if wo == nil {
		return false, false
	}
	return setBool(wo, "hostProcess")
}

// windowsHostProcess checks the HostProcess rules: a container's
// hostProcess agrees with the pod's where both are set, and a pod with a
// HostProcess container (set, or inherited from the pod) has only such
// containers and uses the host network. HostProcess containers are
// allowed, as on a server started with --allow-privileged.
func (v *validator) windowsHostProcess(path string, spec *jsonv.Value) {
	podHP, podSet := hostProcess(spec)
	containers, hostProcesses := 0, 0
	eachPodContainer(path, spec, func(p string, c *jsonv.Value) {
		containers++
		hp, set := hostProcess(c)
		if podSet && set && hp != podHP {
			v.invalidRaw(p+".securityContext.windowsOptions.hostProcess", strconv.FormatBool(hp),
				"pod hostProcess value must be identical if both are specified, was "+strconv.FormatBool(podHP))
		}
		if set && hp || !set && podSet && podHP {
			hostProcesses++
		}
	})
	if hostProcesses == 0 {
		return
	}
	if hostProcesses != containers {
		v.invalid(path, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers")
	}
	if !isTrue(spec, "hostNetwork") {
		v.invalidRaw(path+".hostNetwork", "false", "hostNetwork must be true if pod contains any hostProcess containers")
	}
}
