package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpdateWarningsOverTheWire checks the Warning headers of updates,
// patches and applies as the real server sends them, and the registry
// rules the same rows showed: an updated Pod keeps its default
// tolerations (and so its generation), a DaemonSet's template
// generation annotation counts template changes.
func TestUpdateWarningsOverTheWire(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const svcs = "/api/v1/namespaces/default/services"
	const externalIPs = `299 - "spec.externalIPs is deprecated and may no longer be implemented in some clusters"`
	body := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"w"},"spec":{"clusterIP":"10.96.3.3","externalIPs":["192.0.2.1"],"ports":[{"port":80}]}}`
	r := c.post(svcs, body)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, []string{externalIPs}, r.header.Values("Warning"))
	for _, step := range []struct {
		name string
		r    response
	}{
		{"no-op update", c.do(http.MethodPut, svcs+"/w", body)},
		{"label update", c.do(http.MethodPut, svcs+"/w", strings.Replace(body, `"name":"w"`, `"name":"w","labels":{"a":"b"}`, 1))},
		{"merge patch", c.do(http.MethodPatch, svcs+"/w", `{"metadata":{"labels":{"c":"d"}}}`, "Content-Type", "application/merge-patch+json")},
		{"unchanged apply", c.do(http.MethodPatch, svcs+"/w?fieldManager=m&force=true", body, "Content-Type", "application/apply-patch+yaml")},
	} {
		require.Equal(t, http.StatusOK, step.r.code, "%s: %s", step.name, step.r.body)
		assert.Equal(t, []string{externalIPs}, step.r.header.Values("Warning"), step.name)
	}

	const rcs = "/api/v1/namespaces/default/replicationcontrollers"
	rc := func(volumes string) string {
		return `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc"},"spec":{"replicas":0,"selector":{"app":"w"},"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"c","image":"x"}],"volumes":` + volumes + `}}}}`
	}
	const rbd = `[{"name":"r","rbd":{"monitors":["m"],"image":"i"}}]`
	const rbdWarning = `299 - "spec.template.spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+"`
	require.Equal(t, http.StatusCreated, c.post(rcs, rc(rbd)).code)
	r = c.do(http.MethodPut, rcs+"/rc", strings.Replace(rc(rbd), `"name":"rc"`, `"name":"rc","labels":{"a":"b"}`, 1))
	assert.Empty(t, r.header.Values("Warning"), "no generation change")
	r = c.do(http.MethodPut, rcs+"/rc", rc("[]"))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []string{rbdWarning}, r.header.Values("Warning"), "the stored template's warnings")

	const pods = "/api/v1/namespaces/default/pods"
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]}}`
	require.Equal(t, http.StatusCreated, c.post(pods, pod).code)
	r = c.do(http.MethodPut, pods+"/p", strings.Replace(pod, `"name":"p"`, `"name":"p","labels":{"a":"b"}`, 1))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	got := r.object(t)
	assert.Len(t, got["spec"].(map[string]any)["tolerations"], 2, "the default tolerations come back")
	assert.Equal(t, 1.0, got["metadata"].(map[string]any)["generation"])

	const dss = "/apis/apps/v1/namespaces/default/daemonsets"
	ds := func(labels string) string {
		return `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"w"}},"template":{"metadata":{"labels":{` + labels + `}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`
	}
	require.Equal(t, http.StatusCreated, c.post(dss, ds(`"app":"w"`)).code)
	for i, step := range []struct{ labels, want string }{{`"app":"w"`, "1"}, {`"app":"w","z":"1"`, "2"}, {`"app":"w","z":"2"`, "3"}} {
		r = c.do(http.MethodPut, dss+"/d", ds(step.labels))
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		ann := r.object(t)["metadata"].(map[string]any)["annotations"].(map[string]any)
		assert.Equal(t, step.want, ann["deprecated.daemonset.template.generation"], "update %d", i)
	}
}
