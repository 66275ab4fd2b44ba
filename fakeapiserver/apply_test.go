package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

const applyType = "application/apply-patch+yaml"

func TestServerSideApply(t *testing.T) {
	_, c := newTestServer(t, Options{})
	cfg := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: \"1\"}\n"
	r := c.do(http.MethodPatch, cmPath+"/ssa?fieldManager=alice", cfg, "Content-Type", applyType)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	md := r.object(t)["metadata"].(map[string]any)
	mf := md["managedFields"].([]any)[0].(map[string]any)
	assert.Equal(t, "alice", mf["manager"])
	assert.Equal(t, "Apply", mf["operation"])
	rv := md["resourceVersion"]

	r = c.do(http.MethodPatch, cmPath+"/ssa?fieldManager=alice", cfg, "Content-Type", applyType)
	require.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, rv, r.object(t)["metadata"].(map[string]any)["resourceVersion"], "an unchanged apply writes nothing")

	other := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: \"2\"}\n"
	r = c.do(http.MethodPatch, cmPath+"/ssa?fieldManager=bob", other, "Content-Type", applyType)
	require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	st := r.status(t)
	assert.Equal(t, meta.ReasonConflict, st.Reason)
	assert.Contains(t, st.Message, `Apply failed with 1 conflict: conflict with "alice"`)
	require.NotNil(t, st.Details)
	assert.Equal(t, meta.CauseFieldManagerConflict, st.Details.Causes[0].Type)

	r = c.do(http.MethodPatch, cmPath+"/ssa?fieldManager=bob&force=true", other, "Content-Type", applyType)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, map[string]any{"a": "2"}, r.object(t)["data"])
}

func TestKubectlServerSideApply(t *testing.T) {
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	f := k.file("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: \"1\"}\n")
	assert.Equal(t, "configmap/ssa serverside-applied\n", k.run("apply", "--server-side", "-f", f))
	f2 := k.file("ssa2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: \"2\"}\n")
	assert.Equal(t, "configmap/ssa serverside-applied\n", k.run("apply", "--server-side", "-f", f2))
	assert.Equal(t, "2", k.run("get", "configmap", "ssa", "-o", "jsonpath={.data.a}"))
}
