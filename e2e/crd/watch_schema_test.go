package crd

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var resetsCRD = e2eCRD("e2eresets", "E2EReset", `
            properties:
              a: {type: string}
`)

// TestCustomResourceSchemaChangeResetsWatches: a change to a CRD's spec
// rebuilds its resource's storage. A watch open on the resource ends; a
// watch from a resourceVersion before the change is too old (410), while
// a list exactly there reads the objects with the new schema. A change to
// the CRD's labels alone leaves watches be.
func TestCustomResourceSchemaChangeResetsWatches(t *testing.T) {
	c := newClient(t)
	const resets = "/apis/e2e.kubecache.io/v1/namespaces/default/e2eresets"
	const crdName = crdPath + "/e2eresets.e2e.kubecache.io"
	installCRD(t, c, resetsCRD, resets)
	r := c.do(http.MethodPost, resets, `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2EReset","metadata":{"name":"one"},"spec":{"a":"x"}}`, "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	rv := r.object(t)["metadata"].(map[string]any)["resourceVersion"].(string)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+resets+"?watch=true&resourceVersion="+rv, nil)
	require.NoError(t, err)
	resp, err := c.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ended := make(chan []string, 1)
	go func() {
		var frames []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			frames = append(frames, sc.Text())
		}
		ended <- frames
	}()

	r = c.do(http.MethodPatch, crdName, `{"metadata":{"labels":{"touched":"yes"}}}`, "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = c.do(http.MethodGet, resets+"?watch=true&timeoutSeconds=1&resourceVersion="+rv, "", "")
	assert.Equal(t, http.StatusOK, r.code)
	assert.NotContains(t, string(r.body), `"ERROR"`, "a label on the CRD resets nothing")

	cur := c.do(http.MethodGet, crdName, "", "").object(t)
	props := cur["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	props["b"] = map[string]any{"type": "string", "default": "B"}
	body, err := json.Marshal(cur)
	require.NoError(t, err)
	r = c.do(http.MethodPut, crdName, string(body), "")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	select {
	case frames := <-ended:
		for _, f := range frames {
			assert.NotContains(t, f, `"ERROR"`, "the open watch ends without an error event")
		}
	case <-ctx.Done():
		t.Fatal("the open watch did not end after the CRD's spec changed")
	}

	var last string
	eventually(t, "a watch from before the change to be too old", func() bool {
		r := c.do(http.MethodGet, resets+"?watch=true&timeoutSeconds=1&resourceVersion="+rv, "", "")
		last = string(r.body)
		return r.code == http.StatusOK && strings.Contains(last, `"code":410`)
	})
	assert.Contains(t, last, `"message":"too old resource version: `+rv+` (`)
	assert.Contains(t, last, `"reason":"Expired"`)

	list := c.do(http.MethodGet, resets+"?resourceVersionMatch=Exact&resourceVersion="+rv, "", "")
	require.Equal(t, http.StatusOK, list.code, "%s", list.body)
	assert.Contains(t, string(list.body), `"spec":{"a":"x","b":"B"}`, "a list at the old resourceVersion reads the new schema")
}
