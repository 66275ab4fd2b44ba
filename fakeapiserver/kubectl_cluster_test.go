package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl against the server's cluster behaviour: scale, cascading
// deletes and namespace deletion. Each test checks what kubectl prints and
// what the server then holds.

func replicasOf(t *testing.T, c *testClient, path string) any {
	t.Helper()
	r := c.get(path)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	return r.object(t)["spec"].(map[string]any)["replicas"]
}

func TestKubectlScale(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate(deployPath, webDeployment)
	c.mustCreate("/apis/apps/v1/namespaces/default/statefulsets", `{"metadata":{"name":"db"},"spec":{"replicas":1,"serviceName":"db",
		"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres"}]}}}}`)

	assert.Equal(t, "deployment.apps/web scaled\n", k.run("scale", "deployment", "web", "--replicas=5"))
	d := c.get(deployPath + "/web").object(t)
	assert.EqualValues(t, 5, d["spec"].(map[string]any)["replicas"])
	assert.EqualValues(t, 2, d["metadata"].(map[string]any)["generation"])

	assert.Equal(t, "statefulset.apps/db scaled\n", k.run("scale", "statefulset", "db", "--replicas=3"))
	assert.EqualValues(t, 3, replicasOf(t, c, "/apis/apps/v1/namespaces/default/statefulsets/db"))

	// --current-replicas is checked against the Scale first.
	_, errOut, err := k.try("scale", "deployment", "web", "--current-replicas=2", "--replicas=7")
	require.Error(t, err)
	assert.Contains(t, errOut, "Expected replicas to be 2, was 5")
	assert.EqualValues(t, 5, replicasOf(t, c, deployPath+"/web"), "nothing written")
	assert.Equal(t, "deployment.apps/web scaled\n", k.run("scale", "deployment", "web", "--current-replicas=5", "--replicas=1"))
	assert.EqualValues(t, 1, replicasOf(t, c, deployPath+"/web"))
}

func TestKubectlDeleteBySelector(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	for _, name := range []string{"b", "a", "c"} {
		c.mustCreate(cmPathGC, `{"metadata":{"name":"`+name+`","labels":{"app":"x"}}}`)
	}
	c.mustCreate(cmPathGC, `{"metadata":{"name":"keep","labels":{"app":"y"}}}`)
	out := k.run("delete", "configmaps", "-l", "app=x")
	assert.Equal(t, "configmap \"a\" deleted\nconfigmap \"b\" deleted\nconfigmap \"c\" deleted\n", out)
	assert.Equal(t, []string{"default/keep"}, itemNames(t, decodeList(t, c.get(cmPathGC))))
	out, errOut, err := k.try("delete", "configmaps", "-l", "app=x")
	require.NoError(t, err)
	assert.Contains(t, out+errOut, "No resources found")
}

func TestKubectlDeleteCascades(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"foreground", []string{"--cascade=foreground"}},
		{"background", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := newTestServer(t, Options{})
			k := newKubectl(t, s)
			createFamily(t, c, true, "")
			out := k.run(append([]string{"delete", "deployment", "web"}, tc.args...)...)
			assert.Equal(t, "deployment.apps \"web\" deleted\n", out)
			assert.Equal(t, http.StatusNotFound, c.get(deployPath+"/web").code)
			assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
			assert.Empty(t, decodeList(t, c.get(podPath)).Items)
		})
	}
	t.Run("orphan", func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		k := newKubectl(t, s)
		createFamily(t, c, true, "")
		assert.Equal(t, "replicaset.apps \"web-1\" deleted\n", k.run("delete", "replicaset", "web-1", "--cascade=orphan"))
		assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
		pods := decodeList(t, c.get(podPath))
		assert.Equal(t, []string{"default/web-1-0", "default/web-1-1"}, itemNames(t, pods))
		for _, p := range pods.Items {
			var o struct {
				Metadata map[string]any `json:"metadata"`
			}
			require.NoError(t, json.Unmarshal(p, &o))
			assert.NotContains(t, o.Metadata, "ownerReferences", o.Metadata["name"])
		}
		assert.Equal(t, http.StatusOK, c.get(deployPath+"/web").code, "the replicaset's owner stays")
	})
}

func TestKubectlDeleteNamespaceWithContents(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate(crdPath, widgetCRD)
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"team"}}`)
	c.mustCreate("/api/v1/namespaces/team/configmaps", `{"metadata":{"name":"one"},"data":{"a":"1"}}`)
	c.mustCreate("/api/v1/namespaces/team/configmaps", `{"metadata":{"name":"two"}}`)
	c.mustCreate("/apis/apps/v1/namespaces/team/deployments", webDeployment)
	c.mustCreate("/apis/example.com/v1/namespaces/team/widgets", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)

	assert.Equal(t, "namespace \"team\" deleted\n", k.run("delete", "namespace", "team"))
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/team").code)
	for _, p := range []string{"/api/v1/namespaces/team/configmaps", "/apis/apps/v1/namespaces/team/deployments", "/apis/example.com/v1/namespaces/team/widgets"} {
		assert.Empty(t, decodeList(t, c.get(p)).Items, p)
	}
	_, errOut, err := k.try("get", "namespace", "team")
	require.Error(t, err)
	assert.Contains(t, errOut, `namespaces "team" not found`)

	// A finalizer inside holds a namespace in Terminating, where kubectl
	// cannot create.
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"held"}}`)
	c.mustCreate("/api/v1/namespaces/held/configmaps", `{"metadata":{"name":"pin","finalizers":["example.com/hold"]}}`)
	assert.Equal(t, "namespace \"held\" deleted\n", k.run("delete", "namespace", "held", "--wait=false"))
	assert.Equal(t, "Terminating", c.get("/api/v1/namespaces/held").object(t)["status"].(map[string]any)["phase"])
	_, errOut, err = k.try("create", "-n", "held", "-f", k.file("late.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late}\n"))
	require.Error(t, err)
	assert.Contains(t, errOut, `configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated`)
	r := c.do(http.MethodPatch, "/api/v1/namespaces/held/configmaps/pin", `{"metadata":{"finalizers":null}}`, "Content-Type", mediaMergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/held").code)
}

func TestKubectlGetScaleSubresource(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate(deployPath, webDeployment)
	lines := strings.Split(strings.TrimSpace(k.run("get", "deployment", "web", "--subresource=scale")), "\n")
	require.Len(t, lines, 2, "%q", lines)
	assert.Equal(t, []string{"NAME", "DESIRED", "AVAILABLE"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"web", "2", "0"}, strings.Fields(lines[1]))
	out := k.run("get", "deployment", "web", "--subresource=scale", "-o", "jsonpath={.kind} {.spec.replicas} {.status.selector}")
	assert.Equal(t, "Scale 2 app=web,!canary,tier in (a,b)", out)
}

func TestKubectlReplaceRawFinalizeReleasesAStuckNamespace(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"stuck"},"spec":{"finalizers":["kubernetes","example.com/other"]}}`)
	assert.Equal(t, "namespace \"stuck\" deleted\n", k.run("delete", "namespace", "stuck", "--wait=false"))
	assert.Equal(t, "Terminating example.com/other", k.run("get", "namespace", "stuck", "-o", "jsonpath={.status.phase} {.spec.finalizers[*]}"))
	body := k.file("stuck.json", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":[]}}`)
	out := k.run("replace", "--raw", "/api/v1/namespaces/stuck/finalize", "-f", body)
	assert.Contains(t, out, `"name":"stuck"`)
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/stuck").code)
}
