package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	acceptTable        = "application/json;as=Table;v=v1;g=meta.k8s.io"
	acceptTableV1beta1 = "application/json;as=Table;v=v1beta1;g=meta.k8s.io"
	// acceptKubectlGet is what kubectl get sends: Tables first, plain
	// JSON as the fallback.
	acceptKubectlGet = acceptTable + "," + acceptTableV1beta1 + ",application/json"
)

// tableDoc is a decoded Table.
type tableDoc struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   map[string]any    `json:"metadata"`
	Columns    []json.RawMessage `json:"columnDefinitions"`
	Rows       []struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	} `json:"rows"`
}

func decodeTable(t *testing.T, b []byte) tableDoc {
	t.Helper()
	var d tableDoc
	require.NoError(t, json.Unmarshal(b, &d), "body %s", b)
	require.Equal(t, "Table", d.Kind, "body %s", b)
	return d
}

func columnNames(t *testing.T, d tableDoc) []string {
	t.Helper()
	var out []string
	for _, c := range d.Columns {
		var col struct {
			Name string `json:"name"`
		}
		require.NoError(t, json.Unmarshal(c, &col))
		out = append(out, col.Name)
	}
	return out
}

func TestTableList(t *testing.T) {
	clock := NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	_, c := newTestServer(t, Options{Clock: clock})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"x":"1","y":"2"}}`)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)
	clock.Step(90 * time.Second)

	r := c.get(cmPath, "Accept", acceptKubectlGet)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	d := decodeTable(t, r.body)
	assert.Equal(t, "meta.k8s.io/v1", d.APIVersion)
	assert.Equal(t, []string{"Name", "Data", "Age"}, columnNames(t, d))
	require.Len(t, d.Rows, 2)
	assert.Equal(t, []any{"a", float64(2), "90s"}, d.Rows[0].Cells)
	assert.Equal(t, []any{"b", float64(0), "90s"}, d.Rows[1].Cells)
	assert.NotEmpty(t, d.Metadata["resourceVersion"])
	// The default includeObject is Metadata.
	assert.Contains(t, string(d.Rows[0].Object), `"kind":"PartialObjectMetadata"`)
	assert.NotContains(t, string(d.Rows[0].Object), `"data"`)

	// v1beta1 Tables carry that apiVersion.
	d = decodeTable(t, c.get(cmPath, "Accept", acceptTableV1beta1).body)
	assert.Equal(t, "meta.k8s.io/v1beta1", d.APIVersion)

	// includeObject=Object and None.
	d = decodeTable(t, c.get(cmPath+"?includeObject=Object", "Accept", acceptTable).body)
	assert.Contains(t, string(d.Rows[0].Object), `"kind":"ConfigMap","apiVersion":"v1"`)
	assert.Contains(t, string(d.Rows[0].Object), `"data":{"x":"1","y":"2"}`)
	d = decodeTable(t, c.get(cmPath+"?includeObject=None", "Accept", acceptTable).body)
	assert.Equal(t, "null", string(d.Rows[0].Object))

	// A bad includeObject is 400.
	r = c.get(cmPath+"?includeObject=All", "Accept", acceptTable)
	require.Equal(t, http.StatusBadRequest, r.code)
	st := r.status(t)
	assert.Equal(t, "BadRequest", string(st.Reason))
	assert.Contains(t, st.Message, "Unable to convert to Table as requested: ")

	// Pagination stays the list's.
	d = decodeTable(t, c.get(cmPath+"?limit=1", "Accept", acceptTable).body)
	require.Len(t, d.Rows, 1)
	assert.NotEmpty(t, d.Metadata["continue"])
	assert.EqualValues(t, 1, d.Metadata["remainingItemCount"])
}

func TestTableGetOne(t *testing.T) {
	_, c := newTestServer(t, Options{})
	cm := c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"x":"1"}}`)
	r := c.get(cmPath+"/a", "Accept", acceptKubectlGet)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	d := decodeTable(t, r.body)
	require.Len(t, d.Rows, 1)
	assert.Equal(t, "a", d.Rows[0].Cells[0])
	assert.Equal(t, float64(1), d.Rows[0].Cells[1])
	assert.Equal(t, cm["metadata"].(map[string]any)["resourceVersion"], d.Metadata["resourceVersion"])
	assert.Len(t, d.Metadata, 1, "a single GET's Table metadata is the object's resourceVersion")
}

func TestTableNegotiation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)

	// Table is JSON only: YAML as=Table alone is 406.
	r := c.get(cmPath, "Accept", "application/yaml;as=Table;v=v1;g=meta.k8s.io")
	assert.Equal(t, http.StatusNotAcceptable, r.code)
	// An unknown Table version or group alone is 406.
	r = c.get(cmPath, "Accept", "application/json;as=Table;v=v2;g=meta.k8s.io")
	assert.Equal(t, http.StatusNotAcceptable, r.code)
	r = c.get(cmPath, "Accept", "application/json;as=Table;v=v1;g=example.com")
	assert.Equal(t, http.StatusNotAcceptable, r.code)
	// Writes do not render Tables: with the JSON fallback they answer
	// the object; with only a Table acceptable, 406.
	r = c.post(cmPath, `{"metadata":{"name":"b"}}`, "Accept", acceptKubectlGet)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, "ConfigMap", r.object(t)["kind"])
	r = c.post(cmPath, `{"metadata":{"name":"c"}}`, "Accept", acceptTable)
	assert.Equal(t, http.StatusNotAcceptable, r.code)
	// Without Tables in Accept nothing changes.
	r = c.get(cmPath)
	assert.Equal(t, "ConfigMapList", r.object(t)["kind"])
}

func TestTableDefaultPrinter(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.get("/api/v1/namespaces", "Accept", acceptTable)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	d := decodeTable(t, r.body)
	require.NotEmpty(t, d.Rows)
	// Namespaces have a printer; a resource without one gets Name and
	// Created At.
	r = c.get("/api/v1/namespaces/default/serviceaccounts", "Accept", acceptTable)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	_ = decodeTable(t, r.body)
	r = c.get("/api/v1/namespaces/default/limitranges", "Accept", acceptTable)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []string{"Name", "Created At"}, columnNames(t, decodeTable(t, r.body)))
}

const printerCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gadgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "additionalPrinterColumns":[{"name":"Color","type":"string","jsonPath":".spec.color"},{"name":"Size","type":"integer","jsonPath":".spec.size","priority":1}],
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

func TestTableCustomResources(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, printerCRD)
	c.mustCreate(crdPath, widgetCRD)
	gadgets := "/apis/example.com/v1/namespaces/default/gadgets"
	c.mustCreate(gadgets, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"color":"red","size":3}}`)
	c.mustCreate(widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"}}`)

	d := decodeTable(t, c.get(gadgets, "Accept", acceptTable).body)
	assert.Equal(t, []string{"Name", "Color", "Size"}, columnNames(t, d))
	require.Len(t, d.Rows, 1)
	assert.Equal(t, []any{"g1", "red", float64(3)}, d.Rows[0].Cells)

	// Without additionalPrinterColumns: Name and Age.
	d = decodeTable(t, c.get(widgetPath+"/w1", "Accept", acceptTable).body)
	assert.Equal(t, []string{"Name", "Age"}, columnNames(t, d))
	require.Len(t, d.Rows, 1)
	assert.Equal(t, "w1", d.Rows[0].Cells[0])
}

func TestTableWatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"x":"1"}}`)
	w := c.watch(cmPath+"?watch=true&resourceVersion=0", "Accept", acceptKubectlGet)
	first := w.next()
	assert.Equal(t, "ADDED", first.Type)
	d := decodeTable(t, first.Object)
	assert.Equal(t, []string{"Name", "Data", "Age"}, columnNames(t, d), "the first event carries the columns")
	require.Len(t, d.Rows, 1)
	assert.Equal(t, "a", d.Rows[0].Cells[0])

	b := c.mustCreate(cmPath, `{"metadata":{"name":"b"},"data":{"x":"1","y":"2"}}`)
	e := w.next()
	assert.Equal(t, "ADDED", e.Type)
	assert.Contains(t, string(e.Object), `"columnDefinitions":null`, "later events carry no columns")
	d = decodeTable(t, e.Object)
	require.Len(t, d.Rows, 1)
	assert.Equal(t, []any{"b", float64(2)}, d.Rows[0].Cells[:2])
	assert.Equal(t, b["metadata"].(map[string]any)["resourceVersion"], d.Metadata["resourceVersion"])

	r := c.do(http.MethodDelete, cmPath+"/b", "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	e = w.next()
	assert.Equal(t, "DELETED", e.Type)
	d = decodeTable(t, e.Object)
	require.Len(t, d.Rows, 1)
	assert.Equal(t, "b", d.Rows[0].Cells[0])
	assert.Contains(t, string(d.Rows[0].Object), `"kind":"PartialObjectMetadata"`)
}
