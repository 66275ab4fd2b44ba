package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestLoadManifests(t *testing.T) {
	s, c := newTestServer(t, Options{})
	manifest := `
apiVersion: v1
kind: ConfigMap
metadata: {name: one}
data: {a: "1"}
---
# a comment-only document is skipped
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: team}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: team}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: c, image: nginx}]}
`
	require.NoError(t, s.Load(testContext(t), []byte(manifest)))
	assert.Equal(t, http.StatusOK, c.get(cmPath+"/one").code)
	assert.Equal(t, http.StatusOK, c.get("/apis/apps/v1/namespaces/team/deployments/web").code)

	// Loading again replaces.
	require.NoError(t, s.Load(testContext(t), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\ndata: {a: \"2\"}\n")))
	assert.Equal(t, map[string]any{"a": "2"}, c.get(cmPath + "/one").object(t)["data"])

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"Opaque"}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ignored.txt"), []byte(`not a manifest`), 0o600))
	require.NoError(t, s.LoadFiles(testContext(t), dir))
	assert.Equal(t, http.StatusOK, c.get("/api/v1/namespaces/default/secrets/s").code)

	err := s.Load(testContext(t), []byte("apiVersion: v9\nkind: Nope\nmetadata: {name: x}\n"))
	assert.ErrorContains(t, err, `no resource serves kind "Nope"`)
	err = s.Load(testContext(t), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"))
	var st *meta.Status
	require.ErrorAs(t, err, &st)
	assert.True(t, st.IsInvalid())
}

func TestCompactionByAge(t *testing.T) {
	clock := NewFakeClock(time.Unix(1e9, 0))
	s, c := newTestServer(t, Options{Clock: clock, CompactionInterval: time.Minute})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	require.NoError(t, clock.WaitForTimers(testContext(t), 1))
	clock.Step(time.Minute) // first tick: compacts to the RV at start
	require.NoError(t, clock.WaitForTimers(testContext(t), 1))
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	r := c.get(cmPath + "?resourceVersionMatch=Exact&resourceVersion=" + rvOf(t, a))
	assert.Equal(t, http.StatusOK, r.code, "a's revision is younger than one interval")
	clock.Step(time.Minute) // second tick: compacts to a's revision at the first tick
	require.NoError(t, clock.WaitForTimers(testContext(t), 1))
	assert.GreaterOrEqual(t, s.store.CompactedRV(), s.ResourceVersion()-1)
	prev := fmt.Sprint(s.ResourceVersion() - 2)
	r = c.get(cmPath + "?resourceVersionMatch=Exact&resourceVersion=" + prev)
	assert.Equal(t, http.StatusGone, r.code)
}

func TestContinueTokenTTL(t *testing.T) {
	clock := NewFakeClock(time.Unix(1e9, 0))
	_, c := newTestServer(t, Options{Clock: clock, ContinueTokenTTL: 5 * time.Minute, CompactionInterval: -1})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	first := decodeList(t, c.get(cmPath+"?limit=1"))
	cont := first.Metadata["continue"].(string)
	assert.Equal(t, http.StatusOK, c.get(cmPath+"?limit=1&continue="+cont).code)
	clock.Step(6 * time.Minute)
	r := c.get(cmPath + "?limit=1&continue=" + cont)
	require.Equal(t, http.StatusGone, r.code)
	assert.NotEmpty(t, r.status(t).Continue, "the expired token comes with an inconsistent one")
}

func TestStreamingListFromTheFutureIsAnErrorEvent(t *testing.T) {
	s, c := newTestServer(t, Options{TooLargeResourceVersionWait: 10 * time.Millisecond})
	w := c.watch(fmt.Sprintf("%s?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=%d", cmPath, s.ResourceVersion()+50))
	e := w.next()
	require.Equal(t, "ERROR", e.Type)
	var st meta.Status
	require.NoError(t, json.Unmarshal(e.Object, &st))
	assert.Equal(t, int32(504), st.Code)
	assert.True(t, st.IsResourceVersionTooLarge())
	assert.NoError(t, w.end())
}

func TestMetadataOnlyWatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"secret":"x"}}`)
	w := c.watch(cmPath+"?watch=1&allowWatchBookmarks=true&resourceVersion="+rvOf(t, a), "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	c.do(http.MethodPatch, cmPath+"/a", `{"data":{"secret":"y"}}`, "Content-Type", mergePatch)
	e := w.next()
	assert.Equal(t, "MODIFIED", e.Type)
	assert.Contains(t, string(e.Object), `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"`)
	assert.NotContains(t, string(e.Object), `"data"`)
}

func TestYAMLAndHeadAndMethods(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	r := c.get(cmPath+"/a", "Accept", "application/yaml")
	assert.Equal(t, "application/yaml", r.header.Get("Content-Type"))
	assert.Contains(t, string(r.body), "kind: ConfigMap\n")
	r = c.do(http.MethodPost, cmPath, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yy\n", "Content-Type", "application/yaml")
	assert.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	r = c.do(http.MethodHead, cmPath+"/a", "")
	assert.Equal(t, http.StatusOK, r.code)
	r = c.do(http.MethodPost, cmPath+"/a", `{}`)
	assert.Equal(t, http.StatusMethodNotAllowed, r.code)
	r = c.do(http.MethodPut, "/api/v1/componentstatuses/x", `{}`)
	assert.Equal(t, http.StatusMethodNotAllowed, r.code)
	r = c.get("/api/v1/namespaces/default/configmaps/a/log")
	assert.Equal(t, http.StatusNotFound, r.code)
	r = c.get("/nonsense")
	assert.Equal(t, http.StatusNotFound, r.code)
	assert.Equal(t, "the server could not find the requested resource", r.status(t).Message)
	big := make([]byte, 4<<20)
	r = c.post(cmPath, string(big))
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.code)
}

func TestPartialObjectMetadataKindMustFit(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	r := c.get(cmPath, "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	require.Equal(t, http.StatusNotAcceptable, r.code)
	assert.Equal(t, "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)", r.status(t).Message)
	r = c.get(cmPath+"/a", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	require.Equal(t, http.StatusNotAcceptable, r.code)
	assert.Equal(t, "you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)", r.status(t).Message)
	r = c.get(cmPath+"/a", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	assert.Equal(t, "PartialObjectMetadata", r.object(t)["kind"])
}

func TestLenientBooleans(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.get(cmPath + "?watch=false")
	assert.Equal(t, "ConfigMapList", r.object(t)["kind"])
	w := c.watch(cmPath + "?watch=&allowWatchBookmarks=yes")
	assert.Equal(t, "BOOKMARK", w.next().Type, "an empty watch= is a watch; any value but 0/false is true")
}

// Details checked against a real v1.37.2 by the e2e differential tests.
func TestDifferentialFixes(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for _, n := range []string{"a", "b", "c"} {
		c.mustCreate(cmPath, `{"metadata":{"name":"`+n+`"}}`)
	}
	first := decodeList(t, c.get(cmPath+"?limit=1"))
	rest := decodeList(t, c.get(cmPath+"?limit=1&resourceVersion=0&continue="+first.Metadata["continue"].(string)))
	assert.Equal(t, []string{"default/b", "default/c"}, itemNames(t, rest), "RV=0 with continue: the rest in one page")
	assert.NotContains(t, rest.Metadata, "continue")

	assert.Equal(t, http.StatusMethodNotAllowed, c.do(http.MethodPut, cmPath, `{"metadata":{"name":"a"}}`).code)
	r := c.get("/apis/bogus.example.com/v1/things")
	assert.Equal(t, http.StatusNotFound, r.code)
	assert.Equal(t, "404 page not found\n", string(r.body))
	r = c.do(http.MethodPatch, cmPath+"/a", `{}`, "Content-Type", "application/apply-patch+yaml")
	assert.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Contains(t, r.status(t).Message, "fieldManager: Required value: is required for apply patch")

	f := c.mustCreate(cmPath, `{"metadata":{"name":"f","finalizers":["example.com/hold"]}}`)
	w := c.watch(cmPath + "?watch=1&resourceVersion=" + rvOf(t, f))
	c.do(http.MethodDelete, cmPath+"/f", "")
	assert.Equal(t, "MODIFIED", w.next().Type)
	c.do(http.MethodPatch, cmPath+"/f", `{"metadata":{"finalizers":null}}`, "Content-Type", mergePatch)
	e := w.next()
	require.Equal(t, "DELETED", e.Type)
	assert.Equal(t, []string{"example.com/hold"}, e.meta(t).Finalizers, "the DELETED event carries the last stored state")
}

func TestStrategicMergePatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x:1"},{"name":"b","image":"y:1"}]}}`)
	r := c.do(http.MethodPatch, "/api/v1/namespaces/default/pods/p", `{"spec":{"containers":[{"name":"b","image":"y:2"}]}}`, "Content-Type", "application/strategic-merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	containers := r.object(t)["spec"].(map[string]any)["containers"].([]any)
	require.Len(t, containers, 2, "containers merge by name")
	assert.Equal(t, "y:2", containers[1].(map[string]any)["image"])

	c.mustCreate(crdPath, widgetCRD)
	c.mustCreate(widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	r = c.do(http.MethodPatch, widgetPath+"/w", `{}`, "Content-Type", "application/strategic-merge-patch+json")
	assert.Equal(t, http.StatusUnsupportedMediaType, r.code, "no strategic merge patch for custom resources")
}
