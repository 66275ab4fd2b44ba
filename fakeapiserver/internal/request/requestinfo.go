package request

import (
	"net/http"
	"strings"
)

// Info is what a resource URL and method say: the verb and the
// resource coordinates, parsed the way the real server's request-info
// factory parses them.
type Info struct {
	Verb           string
	Group, Version string
	Namespace      string
	Resource       string
	Name           string
	Subresource    string
	// legacyWatch: the path used the deprecated /watch/ segment.
	legacyWatch bool
	// discovery: the path is /api/v1 or /apis/g/v itself.
	Discovery bool
}

// ParsePath parses /api/v1/... and /apis/g/v/... paths. It reports
// false for paths that are not under a group-version.
func ParsePath(r *http.Request) (Info, bool) {
	var info Info
	path := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(path, "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		info.Version = parts[1]
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		info.Group, info.Version = parts[1], parts[2]
		parts = parts[3:]
	default:
		return info, false
	}
	if len(parts) == 0 {
		info.Discovery = true
		return info, true
	}
	if parts[0] == "watch" {
		info.legacyWatch = true
		parts = parts[1:]
		if len(parts) == 0 {
			return info, false
		}
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	switch len(parts) {
	case 1:
		info.Resource = parts[0]
	case 2:
		info.Resource, info.Name = parts[0], parts[1]
	case 3:
		info.Resource, info.Name, info.Subresource = parts[0], parts[1], parts[2]
	default:
		return info, false
	}
	if info.Resource == "namespaces" {
		// The namespace object itself: /api/v1/namespaces/{name}.
		info.Namespace = ""
	}
	for _, p := range []string{info.Resource, info.Name, info.Subresource} {
		if p == "." || p == ".." {
			return info, false
		}
	}
	if info.Resource == "" || (len(parts) >= 2 && info.Name == "") {
		return info, false
	}
	info.Verb = verbFor(r, info)
	return info, true
}

// verbFor maps the method (and the watch parameter) to a Kubernetes verb.
func verbFor(r *http.Request, info Info) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if info.legacyWatch || isWatchParam(r) {
			return "watch"
		}
		if info.Name != "" {
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if info.Name != "" {
			return "delete"
		}
		return "deletecollection"
	}
	return ""
}

// isWatchParam reports watch=<v> with v anything but "0" or "false" (any
// case); the real server treats even an empty value as a watch.
func isWatchParam(r *http.Request) bool {
	if !strings.Contains(r.URL.RawQuery, "watch") {
		return false
	}
	vals, ok := r.URL.Query()["watch"]
	if !ok {
		return false
	}
	return queryBool(vals)
}
