package fakeapiserver

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl drain cordons the node and evicts its pods through
// pods/eviction, then waits for them to be gone.
func TestKubectlDrain(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	c.mustCreate("/api/v1/nodes", `{"metadata":{"name":"n1"}}`)
	c.mustCreate("/api/v1/nodes", `{"metadata":{"name":"n2"}}`)
	boundPod(t, c, "c", true)
	boundPod(t, c, "d", false)
	c.mustCreate(podsPath, `{"metadata":{"name":"elsewhere"},"spec":{"nodeName":"n2","containers":[{"name":"c","image":"nginx"}]}}`)

	out, errOut, err := k.try("drain", "n1", "--grace-period=0", "--force", "--timeout=60s")
	require.NoError(t, err, "stdout: %s\nstderr: %s", out, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 6, "%s", out)
	assert.Equal(t, "node/n1 cordoned", lines[0])
	assert.Equal(t, "node/n1 drained", lines[5])
	middle := append([]string(nil), lines[1:5]...)
	sort.Strings(middle)
	assert.Equal(t, []string{"evicting pod default/c", "evicting pod default/d", "pod/c evicted", "pod/d evicted"}, middle)
	assert.Equal(t, "Warning: deleting Pods that declare no controller: default/c, default/d\n", errOut)

	assert.Equal(t, http.StatusNotFound, c.get(podsPath+"/c").code)
	assert.Equal(t, http.StatusNotFound, c.get(podsPath+"/d").code)
	assert.Equal(t, http.StatusOK, c.get(podsPath+"/elsewhere").code, "pods on other nodes stay")
	assert.Equal(t, true, dig(c.get("/api/v1/nodes/n1").object(t), "spec", "unschedulable"))
	assert.Contains(t, k.run("get", "node", "n1", "--no-headers"), "SchedulingDisabled")
}
