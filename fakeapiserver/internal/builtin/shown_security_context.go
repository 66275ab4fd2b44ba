package builtin

import (
	"encoding/json"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// A container's security context as the real server quotes it in a
// message: its internal Go struct through encoding/json, with the Go
// field names, in their order, and null for every unset pointer.

type shownCapabilities struct {
	Add  []string
	Drop []string
}

type shownSELinuxOptions struct {
	User  string
	Role  string
	Type  string
	Level string
}

type shownWindowsOptions struct {
	GMSACredentialSpecName *string
	GMSACredentialSpec     *string
	RunAsUserName          *string
	HostProcess            *bool
}

type shownProfile struct {
	Type             string
	LocalhostProfile *string
}

type shownSecurityContext struct {
	Capabilities             *shownCapabilities
	Privileged               *bool
	SELinuxOptions           *shownSELinuxOptions
	WindowsOptions           *shownWindowsOptions
	RunAsUser                *int64
	RunAsGroup               *int64
	RunAsNonRoot             *bool
	ReadOnlyRootFilesystem   *bool
	AllowPrivilegeEscalation *bool
	ProcMount                *string
	SeccompProfile           *shownProfile
	AppArmorProfile          *shownProfile
}

// shownContainerSecurityContext renders a container's security context
// sc the way the real server shows it.
func shownContainerSecurityContext(sc *jsonv.Value) string {
	out := shownSecurityContext{
		Privileged:               optBool(sc, "privileged"),
		RunAsUser:                optInt(sc, "runAsUser"),
		RunAsGroup:               optInt(sc, "runAsGroup"),
		RunAsNonRoot:             optBool(sc, "runAsNonRoot"),
		ReadOnlyRootFilesystem:   optBool(sc, "readOnlyRootFilesystem"),
		AllowPrivilegeEscalation: optBool(sc, "allowPrivilegeEscalation"),
		ProcMount:                optString(sc, "procMount"),
		SeccompProfile:           optProfile(sc, "seccompProfile"),
		AppArmorProfile:          optProfile(sc, "appArmorProfile"),
	}
	if c := present(sc, "capabilities"); c != nil {
		out.Capabilities = &shownCapabilities{Add: optStrings(c, "add"), Drop: optStrings(c, "drop")}
	}
	if s := present(sc, "seLinuxOptions"); s != nil {
		out.SELinuxOptions = &shownSELinuxOptions{User: str(s, "user"), Role: str(s, "role"), Type: str(s, "type"), Level: str(s, "level")}
	}
	if w := present(sc, "windowsOptions"); w != nil {
		out.WindowsOptions = &shownWindowsOptions{
			GMSACredentialSpecName: optString(w, "gmsaCredentialSpecName"),
			GMSACredentialSpec:     optString(w, "gmsaCredentialSpec"),
			RunAsUserName:          optString(w, "runAsUserName"),
			HostProcess:            optBool(w, "hostProcess"),
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func optBool(obj *jsonv.Value, k string) *bool {
	if b, ok := setBool(obj, k); ok {
		return &b
	}
	return nil
}

func optInt(obj *jsonv.Value, k string) *int64 {
	if n, ok := integer(obj, k); ok {
		return &n
	}
	return nil
}

func optString(obj *jsonv.Value, k string) *string {
	if s, ok := setString(obj, k); ok {
		return &s
	}
	return nil
}

// optStrings returns a string list, nil when it is unset and empty (not
// nil) when it is [].
func optStrings(obj *jsonv.Value, k string) []string {
	if unset(obj, k) {
		return nil
	}
	s := stringsOf(obj, k)
	if s == nil {
		s = []string{}
	}
	return s
}

func optProfile(obj *jsonv.Value, k string) *shownProfile {
	p := present(obj, k)
	if p == nil {
		return nil
	}
	return &shownProfile{Type: str(p, "type"), LocalhostProfile: optString(p, "localhostProfile")}
}
