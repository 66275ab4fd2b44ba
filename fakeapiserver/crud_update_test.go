package fakeapiserver

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

const mergePatch = "application/merge-patch+json"

func TestUpdateConflictAndNoOp(t *testing.T) {
	s, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"k":"v"}}`)
	rv := rvOf(t, a)

	r := c.do(http.MethodPut, cmPath+"/a", fmt.Sprintf(`{"metadata":{"name":"a","resourceVersion":%q},"data":{"k":"w"}}`, rv))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	rv2 := rvOf(t, r.object(t))
	assert.NotEqual(t, rv, rv2)

	r = c.do(http.MethodPut, cmPath+"/a", fmt.Sprintf(`{"metadata":{"name":"a","resourceVersion":%q},"data":{"k":"x"}}`, rv))
	require.Equal(t, http.StatusConflict, r.code)
	st := r.status(t)
	assert.Equal(t, meta.ReasonConflict, st.Reason)
	assert.Equal(t, `Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again`, st.Message)

	// A no-op update: same bytes, no new resourceVersion, no event.
	before := s.ResourceVersion()
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rv2)
	r = c.do(http.MethodPut, cmPath+"/a", `{"metadata":{"name":"a"},"data":{"k":"w"}}`)
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, rv2, rvOf(t, r.object(t)))
	assert.Equal(t, before, s.ResourceVersion())
	c.do(http.MethodPut, cmPath+"/a", `{"metadata":{"name":"a"},"data":{"k":"z"}}`)
	e := w.next()
	assert.Equal(t, "MODIFIED", e.Type)
	assert.Contains(t, string(e.Object), `"k":"z"`, "the no-op sent nothing: the first event is the real change")

	r = c.do(http.MethodPut, cmPath+"/a", `{"metadata":{"name":"b"}}`)
	require.Equal(t, http.StatusBadRequest, r.code)
	assert.Equal(t, "the name of the object (b) does not match the name on the URL (a)", r.status(t).Message)
	r = c.do(http.MethodPut, cmPath+"/missing", `{"metadata":{"name":"missing"}}`)
	require.Equal(t, http.StatusNotFound, r.code)
	assert.Equal(t, `configmaps "missing" not found`, r.status(t).Message)
}

func TestCreateOnUpdateAndRequiredResourceVersion(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.do(http.MethodPut, "/api/v1/namespaces/default/services/web", `{"metadata":{"name":"web"},"spec":{"ports":[{"port":80}]}}`)
	assert.Equal(t, http.StatusCreated, r.code, "%s", r.body)

	lease := c.mustCreate("/apis/coordination.k8s.io/v1/namespaces/default/leases", `{"metadata":{"name":"l"},"spec":{"holderIdentity":"a"}}`)
	r = c.do(http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/default/leases/l", `{"metadata":{"name":"l"},"spec":{"holderIdentity":"b"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Equal(t, `leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`, r.status(t).Message)
	r = c.do(http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/default/leases/l", fmt.Sprintf(`{"metadata":{"name":"l","resourceVersion":%q},"spec":{"holderIdentity":"b"}}`, rvOf(t, lease)))
	assert.Equal(t, http.StatusOK, r.code)
}

func TestGenerationAndStatusSubresource(t *testing.T) {
	_, c := newTestServer(t, Options{})
	path := "/apis/apps/v1/namespaces/default/deployments"
	c.mustCreate(path, `{"metadata":{"name":"d"},"spec":`+validDeploySpec+`}`)
	gen := func(r response) any { return r.object(t)["metadata"].(map[string]any)["generation"] }

	r := c.do(http.MethodPatch, path+"/d", `{"metadata":{"labels":{"a":"b"}}}`, "Content-Type", mergePatch)
	assert.EqualValues(t, 1, gen(r), "metadata-only change keeps generation")
	r = c.do(http.MethodPatch, path+"/d", `{"spec":{"replicas":2},"status":{"replicas":9}}`, "Content-Type", mergePatch)
	assert.EqualValues(t, 2, gen(r), "spec change bumps generation")
	assert.Equal(t, map[string]any{}, r.object(t)["status"], "the main resource ignores .status")

	r = c.do(http.MethodPatch, path+"/d/status", `{"status":{"replicas":2},"spec":{"replicas":7}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	obj := r.object(t)
	assert.EqualValues(t, 2, obj["status"].(map[string]any)["replicas"])
	assert.EqualValues(t, 2, obj["spec"].(map[string]any)["replicas"], "/status changes only .status")
	assert.EqualValues(t, 2, gen(r))

	r = c.get(path + "/d/status")
	assert.Equal(t, http.StatusOK, r.code)
	r = c.get("/api/v1/namespaces/default/configmaps/x/status")
	assert.Equal(t, http.StatusNotFound, r.code, "configmaps have no status subresource")
}

func TestPatchTypes(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"k":"v"}}`)

	r := c.do(http.MethodPatch, cmPath+"/a", `[{"op":"test","path":"/data/k","value":"v"},{"op":"add","path":"/data/n","value":"1"}]`, "Content-Type", "application/json-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, map[string]any{"k": "v", "n": "1"}, r.object(t)["data"])

	r = c.do(http.MethodPatch, cmPath+"/a", `[{"op":"test","path":"/data/k","value":"nope"}]`, "Content-Type", "application/json-patch+json")
	require.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Equal(t, "the server rejected our request due to an error in our request", r.status(t).Message)

	r = c.do(http.MethodPatch, cmPath+"/a", `{"x":`, "Content-Type", "application/json-patch+json")
	assert.Equal(t, http.StatusBadRequest, r.code)

	r = c.do(http.MethodPatch, cmPath+"/a", `{"data":{"k":null}}`, "Content-Type", mergePatch)
	assert.Equal(t, map[string]any{"n": "1"}, r.object(t)["data"])

	r = c.do(http.MethodPatch, cmPath+"/a", `{}`, "Content-Type", "application/json")
	assert.Equal(t, http.StatusUnsupportedMediaType, r.code)

	// A patch that sets resourceVersion is a precondition.
	r = c.do(http.MethodPatch, cmPath+"/a", `{"metadata":{"resourceVersion":"1"},"data":{"z":"1"}}`, "Content-Type", mergePatch)
	assert.Equal(t, http.StatusConflict, r.code)

	r = c.do(http.MethodPatch, cmPath+"/missing", `{}`, "Content-Type", mergePatch)
	assert.Equal(t, http.StatusNotFound, r.code)
}

func TestDeleteShapesAndFinalizers(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	r := c.do(http.MethodDelete, cmPath+"/a", `{"propagationPolicy":"Background"}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	st := r.status(t)
	assert.Equal(t, meta.StatusSuccess, st.Status)
	assert.Equal(t, "configmaps", st.Details.Kind)
	assert.Equal(t, a["metadata"].(map[string]any)["uid"], st.Details.UID)
	r = c.do(http.MethodDelete, cmPath+"/a", "")
	assert.Equal(t, http.StatusNotFound, r.code)

	c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"p"},"spec":`+validPodSpec+`}`)
	r = c.do(http.MethodDelete, "/api/v1/namespaces/default/pods/p", "")
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "Pod", r.object(t)["kind"], "pods answer a delete with the object")

	f := c.mustCreate(cmPath, `{"metadata":{"name":"f","finalizers":["example.com/x"]}}`)
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, f))
	r = c.do(http.MethodDelete, cmPath+"/f", "")
	require.Equal(t, http.StatusOK, r.code)
	obj := r.object(t)
	assert.Equal(t, "ConfigMap", obj["kind"], "a delayed delete answers with the object")
	assert.NotNil(t, obj["metadata"].(map[string]any)["deletionTimestamp"])
	assert.EqualValues(t, 0, obj["metadata"].(map[string]any)["deletionGracePeriodSeconds"])
	assert.Equal(t, "MODIFIED", w.next().Type)

	rv := rvOf(t, obj)
	r = c.do(http.MethodDelete, cmPath+"/f", "")
	assert.Equal(t, rv, rvOf(t, r.object(t)), "a second delete changes nothing")

	r = c.do(http.MethodPatch, cmPath+"/f", `{"metadata":{"finalizers":["example.com/x","example.com/y"]}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Contains(t, r.status(t).Message, "no new finalizers can be added if the object is being deleted")

	r = c.do(http.MethodPatch, cmPath+"/f", `{"metadata":{"finalizers":null}}`, "Content-Type", mergePatch)
	require.Equal(t, http.StatusOK, r.code)
	e := w.next()
	assert.Equal(t, "DELETED", e.Type, "removing the last finalizer deletes")
	assert.Equal(t, http.StatusNotFound, c.get(cmPath+"/f").code)
}

func TestDeletePreconditionsDryRunAndCollection(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a","labels":{"x":"1"}}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b","labels":{"x":"1"}}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"c"}}`)

	r := c.do(http.MethodDelete, cmPath+"/a", `{"preconditions":{"resourceVersion":"1"}}`)
	require.Equal(t, http.StatusConflict, r.code)
	st := r.status(t)
	assert.Equal(t, fmt.Sprintf(`Operation cannot be fulfilled on ConfigMap "a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (%s). The object might have been modified`, rvOf(t, a)), st.Message)
	assert.Equal(t, "ConfigMap", st.Details.Kind)

	r = c.do(http.MethodDelete, cmPath+"/a?dryRun=All", "")
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, http.StatusOK, c.get(cmPath+"/a").code, "dry run keeps the object")
	r = c.post(cmPath+"?dryRun=All", `{"metadata":{"name":"dry"}}`)
	require.Equal(t, http.StatusCreated, r.code)
	assert.Equal(t, http.StatusNotFound, c.get(cmPath+"/dry").code)

	r = c.do(http.MethodDelete, cmPath+"?labelSelector=x%3D1", "")
	l := decodeList(t, r)
	assert.Equal(t, "ConfigMapList", l.Kind)
	assert.Equal(t, []string{"default/a", "default/b"}, itemNames(t, l))
	left := decodeList(t, c.get(cmPath))
	assert.Equal(t, []string{"default/c"}, itemNames(t, left))
	r = c.do(http.MethodDelete, cmPath+"?labelSelector=x%3D1", "")
	assert.Empty(t, decodeList(t, r).Items)
	r = c.do(http.MethodDelete, "/api/v1/namespaces", "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.code, "namespaces have no deletecollection")
}

func TestNamespaceDeletionEmptiesIt(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"team"}}`)
	c.mustCreate("/api/v1/namespaces/team/configmaps", `{"metadata":{"name":"a"}}`)
	r := c.do(http.MethodDelete, "/api/v1/namespaces/team", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "Terminating", r.object(t)["status"].(map[string]any)["phase"])
	assert.Equal(t, http.StatusNotFound, c.get("/api/v1/namespaces/team").code)
	assert.Empty(t, decodeList(t, c.get("/api/v1/namespaces/team/configmaps")).Items)
	r = c.do(http.MethodDelete, "/api/v1/namespaces/default", "")
	assert.Equal(t, http.StatusForbidden, r.code)
}

func TestDefaultObjects(t *testing.T) {
	_, c := newTestServer(t, Options{})
	l := decodeList(t, c.get("/api/v1/namespaces"))
	assert.Equal(t, []string{"/default", "/kube-node-lease", "/kube-public", "/kube-system"}, itemNames(t, l))
	svc := c.get("/api/v1/namespaces/default/services/kubernetes").object(t)
	port := svc["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)
	assert.Equal(t, "https", port["name"])
	assert.EqualValues(t, 443, port["port"])
}
