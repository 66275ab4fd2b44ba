package fakeapiserver

import (
	"net/http"
	"strings"
)

// requestInfo is what a resource URL and method say: the verb and the
// resource coordinates, parsed the way the real server's request-info
// factory parses them.
type requestInfo struct {
	verb           string
	group, version string
	namespace      string
	resource       string
	name           string
	subresource    string
	// legacyWatch: the path used the deprecated /watch/ segment.
	legacyWatch bool
	// discovery: the path is /api/v1 or /apis/g/v itself.
	discovery bool
}

// parseResourcePath parses /api/v1/... and /apis/g/v/... paths. It reports
// false for paths that are not under a group-version.
func parseResourcePath(r *http.Request) (requestInfo, bool) {
	var info requestInfo
	path := strings.Trim(r.URL.Path, "/")
	parts := strings.Split(path, "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		info.version = parts[1]
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		info.group, info.version = parts[1], parts[2]
		parts = parts[3:]
	default:
		return info, false
	}
	if len(parts) == 0 {
		info.discovery = true
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
		info.namespace = parts[1]
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	switch len(parts) {
	case 1:
		info.resource = parts[0]
	case 2:
		info.resource, info.name = parts[0], parts[1]
	case 3:
		info.resource, info.name, info.subresource = parts[0], parts[1], parts[2]
	default:
		return info, false
	}
	if info.resource == "namespaces" {
		// The namespace object itself: /api/v1/namespaces/{name}.
		info.namespace = ""
	}
	for _, p := range []string{info.resource, info.name, info.subresource} {
		if p == "." || p == ".." {
			return info, false
		}
	}
	if info.resource == "" || (len(parts) >= 2 && info.name == "") {
		return info, false
	}
	info.verb = verbFor(r, info)
	return info, true
}

// verbFor maps the method (and the watch parameter) to a Kubernetes verb.
func verbFor(r *http.Request, info requestInfo) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if info.legacyWatch || isWatchParam(r) {
			return "watch"
		}
		if info.name != "" {
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
		if info.name != "" {
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
