package discovery

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The health checks the real kube-apiserver v1.37.2 installs, in the
// order /healthz?verbose, /livez?verbose and /readyz?verbose list them.
// The fake server has nothing that can fail, so every check passes.
var (
	// startHooks are the post-start hooks, listed by every endpoint.
	startHooks = []string{
		"poststarthook/start-apiserver-admission-initializer", "poststarthook/generic-apiserver-start-informers",
		"poststarthook/priority-and-fairness-config-consumer", "poststarthook/priority-and-fairness-filter",
		"poststarthook/storage-object-count-tracker-hook", "poststarthook/start-apiextensions-informers",
		"poststarthook/start-apiextensions-controllers", "poststarthook/crd-informer-synced",
		"poststarthook/start-system-namespaces-controller", "poststarthook/peer-endpoint-reconciler-controller",
		"poststarthook/start-cluster-authentication-info-controller", "poststarthook/start-kube-apiserver-identity-lease-controller",
		"poststarthook/start-kube-apiserver-identity-lease-garbage-collector", "poststarthook/storage-readiness",
		"poststarthook/start-legacy-token-tracking-controller", "poststarthook/start-service-ip-repair-controllers",
		"poststarthook/rbac/bootstrap-roles", "poststarthook/scheduling/bootstrap-system-priority-classes",
		"poststarthook/priority-and-fairness-config-producer", "poststarthook/bootstrap-controller",
		"poststarthook/start-kubernetes-service-cidr-controller", "poststarthook/start-kube-aggregator-informers",
		"poststarthook/apiservice-status-local-available-controller", "poststarthook/apiservice-status-remote-available-controller",
		"poststarthook/apiservice-registration-controller", "poststarthook/apiservice-discovery-controller",
		"poststarthook/kube-apiserver-autoregistration", "autoregister-completion",
		"poststarthook/apiservice-openapi-controller", "poststarthook/apiservice-openapiv3-controller",
	}
	liveChecks  = slices.Concat([]string{"ping", "log", "loopback-serving-certificate", "etcd"}, startHooks)
	readyChecks = slices.Concat([]string{"ping", "log", "etcd", "etcd-readiness", "informer-sync"}, startHooks, []string{"shutdown"})
	// healthChecks maps an endpoint to its checks (/healthz lists the
	// same as /livez).
	healthChecks = map[string][]string{"healthz": liveChecks, "livez": liveChecks, "readyz": readyChecks}
)

// isHealthPath reports whether path (without a trailing slash) is a
// health endpoint or one of its checks.
func isHealthPath(path string) bool {
	for name := range healthChecks {
		if path == "/"+name || strings.HasPrefix(path, "/"+name+"/") {
			return true
		}
	}
	return false
}

// serveHealth answers /healthz, /livez and /readyz as the real server
// does: "ok", or with ?verbose one line per check ("[+]name ok", "[+]name
// excluded: ok" for one named by ?exclude=, a warning line for excluded
// names that match no check) and "<endpoint> check passed"; a single
// check (/livez/etcd) answers "ok", an unknown one Go's plain 404.
func serveHealth(w http.ResponseWriter, r *http.Request, path string) {
	endpoint, check, single := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	checks := healthChecks[endpoint]
	if single {
		if !slices.Contains(checks, check) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	q := r.URL.Query()
	if _, verbose := q["verbose"]; !verbose {
		_, _ = w.Write([]byte("ok"))
		return
	}
	excluded := q["exclude"]
	var b strings.Builder
	for _, c := range checks {
		if slices.Contains(excluded, c) {
			fmt.Fprintf(&b, "[+]%s excluded: ok\n", c)
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", c)
	}
	var unknown []string
	for _, e := range excluded {
		if !slices.Contains(checks, e) && !slices.Contains(unknown, e) {
			unknown = append(unknown, e)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		quoted := make([]string, len(unknown))
		for i, u := range unknown {
			quoted[i] = fmt.Sprintf("%q", u)
		}
		fmt.Fprintf(&b, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(quoted, ","))
	}
	fmt.Fprintf(&b, "%s check passed\n", endpoint)
	_, _ = w.Write([]byte(b.String()))
}
