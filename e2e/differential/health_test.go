package differential

import "testing"

// TestHealth compares /healthz, /livez and /readyz, plain and verbose,
// with exclusions, one check's path and an unknown check.
func TestHealth(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-health")
	for _, p := range []string{
		"/livez", "/readyz", "/healthz",
		"/livez?verbose", "/readyz?verbose", "/healthz?verbose",
		"/livez?verbose&exclude=etcd", "/readyz?verbose&exclude=bogus&exclude=etcd-readiness",
		"/livez/ping", "/readyz/shutdown", "/livez/poststarthook/rbac/bootstrap-roles", "/healthz/etcd?verbose",
		"/livez/bogus", "/livez/shutdown",
	} {
		c.Compare(p, get(p))
	}
}
