package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/discovery"
)

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
    "selectableFields":[{"jsonPath":".spec.color"}],
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
const widgetPath = "/apis/example.com/v1/namespaces/default/widgets"

func TestCustomResourceLifecycle(t *testing.T) {
	s, c := newTestServer(t, Options{})
	assert.Equal(t, http.StatusNotFound, c.get(widgetPath).code)

	crd := c.mustCreate(crdPath, widgetCRD)
	conds := crd["status"].(map[string]any)["conditions"].([]any)
	require.Len(t, conds, 2)
	assert.Equal(t, "NamesAccepted", conds[0].(map[string]any)["type"])
	assert.Equal(t, "Established", conds[1].(map[string]any)["type"])
	assert.Equal(t, "True", conds[1].(map[string]any)["status"])

	// Served and discoverable at once.
	disc := c.get("/apis/example.com/v1")
	require.Equal(t, http.StatusOK, disc.code)
	assert.Contains(t, string(disc.body), `"name":"widgets/status","singularName":""`)
	agg := c.get("/apis", "Accept", discovery.MediaAggregated)
	assert.Contains(t, string(agg.body), `"resource":"widgets"`)

	w := c.mustCreate(widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"},"status":{"ok":true}}`)
	assert.EqualValues(t, 1, w["metadata"].(map[string]any)["generation"])
	assert.Nil(t, w["status"], "custom resources drop .status on create when status is a subresource")
	c.mustCreate(widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"color":"blue"}}`)

	l := decodeList(t, c.get(widgetPath))
	assert.Equal(t, "WidgetList", l.Kind)
	assert.Contains(t, string(l.Items[0]), `"kind":"Widget","apiVersion":"example.com/v1"`, "custom resource items carry kind")
	assert.Equal(t, "", l.Metadata["continue"], `the last page has "continue": ""`)
	l = decodeList(t, c.get(widgetPath+"?fieldSelector=spec.color%3Dblue"))
	assert.Equal(t, []string{"default/w2"}, itemNames(t, l))
	r := c.get(widgetPath + "?fieldSelector=spec.size%3D1")
	assert.Equal(t, http.StatusBadRequest, r.code)

	r = c.do(http.MethodPut, widgetPath+"/w1", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"green"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "custom resources need resourceVersion on update")

	watch := c.watch(widgetPath + "?watch=1&resourceVersion=" + rvOf(t, w))
	// The response starts before the watch registers: wait for it, or the
	// deletion may end it before it sees anything.
	require.NoError(t, s.WaitForWatchers(testContext(t), "widgets.example.com", 1))
	r = c.do(http.MethodDelete, crdPath+"/widgets.example.com", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	seen := map[string]bool{}
	for range 2 {
		e := watch.next()
		if e.Type == "ADDED" {
			e = watch.next()
		}
		assert.Equal(t, "DELETED", e.Type)
		seen[e.meta(t).Name] = true
	}
	assert.Equal(t, map[string]bool{"w1": true, "w2": true}, seen, "deleting the CRD deletes its objects")
	assert.NoError(t, watch.end())
	assert.Equal(t, http.StatusNotFound, c.get(widgetPath).code)
	assert.False(t, strings.Contains(string(c.get("/apis", "Accept", discovery.MediaAggregated).body), "example.com"))
}

func TestCRDValidation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.post(crdPath, `{"metadata":{"name":"wrong.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true}]}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code)
	assert.Contains(t, r.status(t).Message, `CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid`)
}
