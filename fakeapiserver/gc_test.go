package fakeapiserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	deployPath = "/apis/apps/v1/namespaces/default/deployments"
	rsPath     = "/apis/apps/v1/namespaces/default/replicasets"
	podPath    = "/api/v1/namespaces/default/pods"
	cmPathGC   = "/api/v1/namespaces/default/configmaps"
)

// ownerRef renders one ownerReferences item naming obj.
func ownerRef(obj map[string]any, block bool) string {
	m := obj["metadata"].(map[string]any)
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":%t}`,
		obj["apiVersion"], obj["kind"], m["name"], m["uid"], block)
}

func uidOf(obj map[string]any) string { return obj["metadata"].(map[string]any)["uid"].(string) }

// family is a deployment owning a replicaset owning two pods.
type family struct {
	deploy, rs map[string]any
	pods       []map[string]any
}

// createFamily creates the deployment "web", its replicaset and pods;
// extraPodMeta is spliced into the first pod's metadata.
func createFamily(t *testing.T, c *testClient, block bool, extraPodMeta string) family {
	t.Helper()
	var f family
	f.deploy = c.mustCreate(deployPath, `{"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	f.rs = c.mustCreate(rsPath, `{"metadata":{"name":"web-1","labels":{"app":"web"},"ownerReferences":[`+ownerRef(f.deploy, block)+`]},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	for i := range 2 {
		extra := ""
		if i == 0 {
			extra = extraPodMeta
		}
		f.pods = append(f.pods, c.mustCreate(podPath, fmt.Sprintf(`{"metadata":{"name":"web-1-%d","labels":{"app":"web"}%s,"ownerReferences":[%s]},
			"spec":{"containers":[{"name":"web","image":"nginx"}]}}`, i, extra, ownerRef(f.rs, block))))
	}
	return f
}

func TestGCBackgroundCascades(t *testing.T) {
	_, c := newTestServer(t, Options{})
	f := createFamily(t, c, true, "")
	rv := f.pods[1]["metadata"].(map[string]any)["resourceVersion"].(string)
	pods := c.watch(podPath + "?watch=1&resourceVersion=" + rv)
	sets := c.watch(rsPath + "?watch=1&resourceVersion=" + rv)

	r := c.do(http.MethodDelete, deployPath+"/web", `{"propagationPolicy":"Background"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "Success", r.status(t).Status, "the owner goes at once")

	assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
	assert.Empty(t, decodeList(t, c.get(podPath)).Items)

	e := sets.next()
	assert.Equal(t, "DELETED", e.Type)
	rsRV, _ := strconv.ParseInt(e.meta(t).ResourceVersion, 10, 64)
	last := rsRV
	for _, name := range []string{"web-1-0", "web-1-1"} {
		e := pods.next()
		require.Equal(t, "DELETED", e.Type)
		assert.Equal(t, name, e.meta(t).Name)
		n, _ := strconv.ParseInt(e.meta(t).ResourceVersion, 10, 64)
		assert.Greater(t, n, last, "each delete has its own, later resourceVersion")
		last = n
	}
}

func TestGCDefaultPolicyIsBackground(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createFamily(t, c, false, "")
	r := c.do(http.MethodDelete, rsPath+"/web-1", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Empty(t, decodeList(t, c.get(podPath)).Items)
	assert.Equal(t, http.StatusOK, c.get(deployPath+"/web").code, "owners are not touched")
}

func TestGCForegroundWaitsForBlockingDependents(t *testing.T) {
	_, c := newTestServer(t, Options{})
	f := createFamily(t, c, true, `,"finalizers":["example.com/hold"]`)
	deploys := c.watch(deployPath + "?watch=1&resourceVersion=" + f.pods[1]["metadata"].(map[string]any)["resourceVersion"].(string))

	r := c.do(http.MethodDelete, deployPath+"/web", `{"propagationPolicy":"Foreground"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	md := r.object(t)["metadata"].(map[string]any)
	assert.NotEmpty(t, md["deletionTimestamp"])
	assert.Equal(t, []any{"foregroundDeletion"}, md["finalizers"])

	// The held pod blocks the replicaset, which blocks the deployment.
	held := c.get(podPath + "/web-1-0").object(t)["metadata"].(map[string]any)
	assert.NotEmpty(t, held["deletionTimestamp"])
	assert.Equal(t, http.StatusNotFound, c.get(podPath+"/web-1-1").code)
	rs := c.get(rsPath + "/web-1")
	require.Equal(t, http.StatusOK, rs.code)
	assert.Equal(t, []any{"foregroundDeletion"}, rs.object(t)["metadata"].(map[string]any)["finalizers"], "the dependent that owns objects is deleted in the foreground too")
	require.Equal(t, http.StatusOK, c.get(deployPath+"/web").code)

	r = c.do(http.MethodPatch, podPath+"/web-1-0", `{"metadata":{"finalizers":null}}`, "Content-Type", mediaMergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
	assert.Equal(t, http.StatusNotFound, c.get(deployPath+"/web").code)

	assert.Equal(t, "MODIFIED", deploys.next().Type, "deletionTimestamp and the finalizer")
	e := deploys.next()
	assert.Equal(t, "DELETED", e.Type)
	assert.Equal(t, []string{"foregroundDeletion"}, e.meta(t).Finalizers, "DELETED carries the last stored state")
}

func TestGCForegroundDoesNotWaitForNonBlocking(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createFamily(t, c, false, `,"finalizers":["example.com/hold"]`)
	r := c.do(http.MethodDelete, rsPath+"/web-1", `{"propagationPolicy":"Foreground"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
	held := c.get(podPath + "/web-1-0")
	require.Equal(t, http.StatusOK, held.code, "held by its own finalizer")
	assert.NotEmpty(t, held.object(t)["metadata"].(map[string]any)["deletionTimestamp"])
}

func TestGCOrphanKeepsDependents(t *testing.T) {
	_, c := newTestServer(t, Options{})
	f := createFamily(t, c, true, "")
	r := c.do(http.MethodDelete, rsPath+"/web-1", `{"propagationPolicy":"Orphan"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []any{"orphan"}, r.object(t)["metadata"].(map[string]any)["finalizers"])
	assert.Equal(t, http.StatusNotFound, c.get(rsPath+"/web-1").code)
	for _, p := range f.pods {
		name := p["metadata"].(map[string]any)["name"].(string)
		got := c.get(podPath + "/" + name)
		require.Equal(t, http.StatusOK, got.code)
		assert.NotContains(t, got.object(t)["metadata"], "ownerReferences", name)
	}
	assert.Equal(t, http.StatusOK, c.get(deployPath+"/web").code)

	// orphanDependents=true is the older spelling.
	c.mustCreate(cmPathGC, `{"metadata":{"name":"owner"}}`)
	owner := c.get(cmPathGC + "/owner").object(t)
	c.mustCreate(cmPathGC, `{"metadata":{"name":"dep","ownerReferences":[`+ownerRef(owner, false)+`]}}`)
	r = c.do(http.MethodDelete, cmPathGC+"/owner", `{"orphanDependents":true}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.NotContains(t, c.get(cmPathGC + "/dep").object(t)["metadata"], "ownerReferences")
}

func TestGCKeepsDependentWithALiveOwner(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPathGC, `{"metadata":{"name":"a"}}`)
	b := c.mustCreate(cmPathGC, `{"metadata":{"name":"b"}}`)
	a["apiVersion"], a["kind"], b["apiVersion"], b["kind"] = "v1", "ConfigMap", "v1", "ConfigMap"
	c.mustCreate(cmPathGC, `{"metadata":{"name":"dep","ownerReferences":[`+ownerRef(a, false)+`,`+ownerRef(b, false)+`]}}`)
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, cmPathGC+"/a", "").code)
	dep := c.get(cmPathGC + "/dep")
	require.Equal(t, http.StatusOK, dep.code)
	refs := dep.object(t)["metadata"].(map[string]any)["ownerReferences"].([]any)
	require.Len(t, refs, 1)
	assert.Equal(t, uidOf(b), refs[0].(map[string]any)["uid"])
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, cmPathGC+"/b", "").code)
	assert.Equal(t, http.StatusNotFound, c.get(cmPathGC+"/dep").code)
}

func TestGCCollectsDanglingReferences(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPathGC, `{"metadata":{"name":"a"}}`)
	a["apiVersion"], a["kind"] = "v1", "ConfigMap"
	wrong := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "uid": "00000000-0000-4000-8000-000000000000"}}
	r := c.post(cmPathGC, `{"metadata":{"name":"dangling","ownerReferences":[`+ownerRef(wrong, false)+`]}}`)
	require.Equal(t, http.StatusCreated, r.code, "the create itself succeeds")
	assert.Equal(t, http.StatusNotFound, c.get(cmPathGC+"/dangling").code, "an owner with another uid is gone")
	unknown := map[string]any{"apiVersion": "example.com/v9", "kind": "Nothing", "metadata": map[string]any{"name": "x", "uid": "u"}}
	c.mustCreate(cmPathGC, `{"metadata":{"name":"unresolved","ownerReferences":[`+ownerRef(unknown, false)+`]}}`)
	assert.Equal(t, http.StatusOK, c.get(cmPathGC+"/unresolved").code, "references to kinds not served are left alone")
	c.mustCreate(cmPathGC, `{"metadata":{"name":"owned","ownerReferences":[`+ownerRef(a, false)+`]}}`)
	assert.Equal(t, http.StatusOK, c.get(cmPathGC+"/owned").code)
}

func TestGCOwnershipCycleIsDeleted(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPathGC, `{"metadata":{"name":"a"}}`)
	a["apiVersion"], a["kind"] = "v1", "ConfigMap"
	b := c.mustCreate(cmPathGC, `{"metadata":{"name":"b","ownerReferences":[`+ownerRef(a, true)+`]}}`)
	b["apiVersion"], b["kind"] = "v1", "ConfigMap"
	r := c.do(http.MethodPatch, cmPathGC+"/a", `{"metadata":{"ownerReferences":[`+ownerRef(b, true)+`]}}`, "Content-Type", mediaMergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = c.do(http.MethodDelete, cmPathGC+"/a", `{"propagationPolicy":"Foreground"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Empty(t, decodeList(t, c.get(cmPathGC)).Items)
}

func TestGCDryRunDeletesNothing(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createFamily(t, c, true, "")
	r := c.do(http.MethodDelete, deployPath+"/web?dryRun=All", `{"propagationPolicy":"Foreground"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Len(t, decodeList(t, c.get(podPath)).Items, 2)
	assert.Equal(t, http.StatusOK, c.get(rsPath+"/web-1").code)
}

func TestGCDeletingACRDCollectsWhatItsObjectsOwned(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, widgetCRD)
	w := c.mustCreate(widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	c.mustCreate(cmPathGC, `{"metadata":{"name":"owned","ownerReferences":[`+ownerRef(w, false)+`]}}`)
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"team"}}`)
	c.mustCreate("/apis/example.com/v1/namespaces/team/widgets", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"pin","finalizers":["example.com/hold"]}}`)
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, "/api/v1/namespaces/team", "").code)
	require.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/team").code, "held by the widget's finalizer")

	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, crdPath+"/widgets.example.com", "").code)
	assert.Equal(t, http.StatusNotFound, c.get(cmPathGC+"/owned").code)
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/team").code, "its last content went with the CRD")
}

func TestGCConcurrentDependentsAreAllCollected(t *testing.T) {
	_, c := newTestServer(t, Options{})
	owner := c.mustCreate(cmPathGC, `{"metadata":{"name":"owner"}}`)
	const writers, each = 4, 15
	codes := make(chan int, writers*each+1)
	done := make(chan struct{})
	for w := range writers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range each {
				// No require off the test goroutine: report the code.
				body := fmt.Sprintf(`{"metadata":{"name":"dep-%d-%d","ownerReferences":[%s]}}`, w, i, ownerRef(owner, false))
				resp, err := c.http.Post(c.base+cmPathGC, "application/json", strings.NewReader(body))
				if err != nil {
					codes <- 0
					continue
				}
				resp.Body.Close()
				codes <- resp.StatusCode
			}
		}()
	}
	codes <- c.do(http.MethodDelete, cmPathGC+"/owner", "").code
	for range writers {
		<-done
	}
	close(codes)
	for code := range codes {
		assert.Contains(t, []int{http.StatusOK, http.StatusCreated}, code)
	}
	assert.Empty(t, decodeList(t, c.get(cmPathGC)).Items, "dependents written before, during and after the owner's delete are all collected")
}
