package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSchemaCRD declares spec.a and spec.old; the change below drops old
// and adds defaulted fields.
const readSchemaCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"reads.example.net"%s},"spec":{"group":"example.net","names":{"plural":"reads","kind":"Read"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{%s}}}}}}]}}`

// The answers are a real kube-apiserver v1.37.2's: after the CRD gains
// defaults and loses a field, an object stored before is read with the
// defaults and without the field, its resourceVersion unchanged and no
// watch event sent: the open watch ends.
func TestCustomResourceReadWithChangedSchema(t *testing.T) {
	_, c := newTestServer(t, Options{})
	crd := c.mustCreate(crdPath, strings.Replace(strings.Replace(readSchemaCRD, "%s", "", 1), "%s", `"a":{"type":"string"},"old":{"type":"string"}`, 1))
	const reads = "/apis/example.net/v1/namespaces/default/reads"
	obj := c.mustCreate(reads, `{"apiVersion":"example.net/v1","kind":"Read","metadata":{"name":"one"},"spec":{"a":"x","old":"y"}}`)
	rv := obj["metadata"].(map[string]any)["resourceVersion"].(string)
	w := c.watch(reads + "?watch=1&resourceVersion=" + rv)
	defer w.close()

	crdRV := crd["metadata"].(map[string]any)["resourceVersion"].(string)
	changed := strings.Replace(strings.Replace(readSchemaCRD, "%s", `,"resourceVersion":"`+crdRV+`"`, 1), "%s",
		`"a":{"type":"string"},"b":{"type":"string","default":"B"},"c":{"type":"object","default":{},"properties":{"d":{"type":"integer","default":4}}}`, 1)
	r := c.do(http.MethodPut, crdPath+"/reads.example.net", changed)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	got := c.get(reads + "/one").object(t)
	assert.Equal(t, map[string]any{"a": "x", "b": "B", "c": map[string]any{"d": float64(4)}}, got["spec"])
	assert.Equal(t, rv, got["metadata"].(map[string]any)["resourceVersion"])
	items := c.get(reads).object(t)["items"].([]any)
	require.Len(t, items, 1)
	assert.Equal(t, got["spec"], items[0].(map[string]any)["spec"])

	// The open watch ends, with no event for the rewritten object, as
	// the real server's does when it rebuilds the resource's storage; a
	// watch from the change on sees the next write first.
	require.NoError(t, w.end())
	w2 := c.watch(reads + "?watch=1&resourceVersion=" + r.object(t)["metadata"].(map[string]any)["resourceVersion"].(string))
	defer w2.close()
	c.mustCreate(reads, `{"apiVersion":"example.net/v1","kind":"Read","metadata":{"name":"two"}}`)
	ev := w2.next()
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "two", ev.meta(t).Name)
}
