package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

const cmPath = "/api/v1/namespaces/default/configmaps"

func TestCreateSetsServerFields(t *testing.T) {
	_, c := newTestServer(t, Options{Seed: 1})
	r := c.post(cmPath+"?fieldManager=test", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"client-uid","labels":{"x":"y"}},"data":{"k":"v"}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	obj := r.object(t)
	md := obj["metadata"].(map[string]any)
	assert.Equal(t, "ConfigMap", obj["kind"])
	assert.Equal(t, "v1", obj["apiVersion"])
	assert.Equal(t, "default", md["namespace"])
	assert.NotEqual(t, "client-uid", md["uid"])
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, md["uid"])
	assert.NotEmpty(t, md["resourceVersion"])
	assert.NotEmpty(t, md["creationTimestamp"])
	assert.Nil(t, md["generation"], "configmaps have no generation")
	mf := md["managedFields"].([]any)[0].(map[string]any)
	assert.Equal(t, "test", mf["manager"])
	assert.Equal(t, "Update", mf["operation"])
	assert.Equal(t, `{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`, compact(mustJSON(t, mf["fieldsV1"])))
	assert.True(t, strings.HasPrefix(string(r.body), `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":`), "field order: %s", r.body)

	r = c.post(cmPath, `{"metadata":{"name":"a"}}`)
	require.Equal(t, http.StatusConflict, r.code)
	st := r.status(t)
	assert.Equal(t, meta.ReasonAlreadyExists, st.Reason)
	assert.Equal(t, `configmaps "a" already exists`, st.Message)
	assert.Equal(t, "configmaps", st.Details.Kind)

	d := c.mustCreate("/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"d"},"spec":`+validDeploySpec+`,"status":{"replicas":5}}`)
	assert.EqualValues(t, 1, d["metadata"].(map[string]any)["generation"])
	assert.Equal(t, map[string]any{}, d["status"], "status is reset on create")
}

func TestCreateErrors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	cases := []struct {
		name, path, body string
		code             int
		reason           meta.StatusReason
		msg              string
	}{
		{"no name", cmPath, `{"metadata":{}}`, 422, meta.ReasonInvalid, `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`},
		{"bad name", cmPath, `{"metadata":{"name":"Bad_Name"}}`, 422, meta.ReasonInvalid, `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`},
		{"namespace mismatch", cmPath, `{"metadata":{"name":"x","namespace":"other"}}`, 400, meta.ReasonBadRequest, "the namespace of the provided object does not match the namespace sent on the request"},
		{"missing namespace", "/api/v1/namespaces/nope/configmaps", `{"metadata":{"name":"x"}}`, 404, meta.ReasonNotFound, `namespaces "nope" not found`},
		{"wrong kind", cmPath, `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"x"}}`, 400, meta.ReasonBadRequest, `Secret in version "v1" cannot be handled as a ConfigMap`},
		{"bad json", cmPath, `{"metadata":`, 400, meta.ReasonBadRequest, "couldn't get version/kind; json parse error"},
		{"resourceVersion set", cmPath, `{"metadata":{"name":"x","resourceVersion":"5"}}`, 500, meta.ReasonUnknown, "resourceVersion should not be set on objects to be created"},
		{"bad label", cmPath, `{"metadata":{"name":"x","labels":{"a b":"c"}}}`, 422, meta.ReasonInvalid, `metadata.labels: Invalid value: "a b"`},
		{"unknown resource", "/api/v1/namespaces/default/widgets", `{}`, 404, meta.ReasonNotFound, "the server could not find the requested resource"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.post(tc.path, tc.body)
			require.Equal(t, tc.code, r.code, "%s", r.body)
			st := r.status(t)
			assert.Equal(t, tc.reason, st.Reason)
			assert.Contains(t, st.Message, tc.msg)
			assert.EqualValues(t, tc.code, st.Code)
		})
	}
	r := c.post(cmPath, `{}`, "Content-Type", "text/plain")
	assert.Equal(t, http.StatusUnsupportedMediaType, r.code)
	assert.Equal(t, "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf", r.status(t).Message)
}

func TestGenerateNameIsSeeded(t *testing.T) {
	_, c1 := newTestServer(t, Options{Seed: 7})
	_, c2 := newTestServer(t, Options{Seed: 7})
	a := c1.mustCreate(cmPath, `{"metadata":{"generateName":"web-"}}`)["metadata"].(map[string]any)
	b := c2.mustCreate(cmPath, `{"metadata":{"generateName":"web-"}}`)["metadata"].(map[string]any)
	assert.Regexp(t, `^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`, a["name"])
	assert.Equal(t, a["name"], b["name"])
	assert.Equal(t, a["uid"], b["uid"])
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := jsonMarshal(v)
	require.NoError(t, err)
	return b
}
