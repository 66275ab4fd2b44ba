package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

type listBody struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   map[string]any    `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

func decodeList(t *testing.T, r response) listBody {
	t.Helper()
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var l listBody
	require.NoError(t, json.Unmarshal(r.body, &l))
	return l
}

func itemNames(t *testing.T, l listBody) []string {
	t.Helper()
	var names []string
	for _, it := range l.Items {
		var o struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		}
		require.NoError(t, json.Unmarshal(it, &o))
		names = append(names, o.Metadata.Namespace+"/"+o.Metadata.Name)
	}
	return names
}

func TestListKeyOrderShapeAndSelectors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"a-b"}}`)
	for _, p := range []struct{ ns, name, labels string }{{"default", "b", `{"app":"web"}`}, {"default", "a", `{"app":"db"}`}, {"a-b", "z", `{}`}} {
		c.mustCreate("/api/v1/namespaces/"+p.ns+"/configmaps", fmt.Sprintf(`{"metadata":{"name":%q,"labels":%s}}`, p.name, p.labels))
	}
	l := decodeList(t, c.get("/api/v1/configmaps"))
	assert.Equal(t, "ConfigMapList", l.Kind)
	assert.Equal(t, "v1", l.APIVersion)
	assert.Equal(t, []string{"a-b/z", "default/a", "default/b"}, itemNames(t, l), "key order")
	assert.NotContains(t, string(l.Items[0]), `"kind"`, "built-in list items carry no kind")
	assert.NotContains(t, l.Metadata, "continue")

	l = decodeList(t, c.get(cmPath+"?labelSelector="+url.QueryEscape("app in (web,x)")))
	assert.Equal(t, []string{"default/b"}, itemNames(t, l))
	l = decodeList(t, c.get("/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault,metadata.name!%3Da"))
	assert.Equal(t, []string{"default/b"}, itemNames(t, l))

	r := c.get(cmPath + "?fieldSelector=spec.x%3D1")
	require.Equal(t, http.StatusBadRequest, r.code)
	assert.Equal(t, `"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"`, r.status(t).Message)
	r = c.get("/api/v1/pods?fieldSelector=spec.bogus%3D1")
	assert.Equal(t, "field label not supported: spec.bogus", r.status(t).Message)
	r = c.get(cmPath + "?labelSelector=" + url.QueryEscape("a in b"))
	assert.Equal(t, http.StatusBadRequest, r.code)
}

func TestPodFieldSelectors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"p1"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}]}}`)
	c.mustCreate("/api/v1/namespaces/default/pods", `{"metadata":{"name":"p2"},"spec":`+validPodSpec+`}`)
	l := decodeList(t, c.get("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1"))
	assert.Equal(t, []string{"default/p1"}, itemNames(t, l))
	l = decodeList(t, c.get("/api/v1/pods?fieldSelector=spec.nodeName%3D"))
	assert.Equal(t, []string{"default/p2"}, itemNames(t, l))
	l = decodeList(t, c.get("/api/v1/pods?fieldSelector=status.phase%3DPending,spec.hostNetwork%3Dfalse"))
	assert.Len(t, l.Items, 2)
}

func TestPaginationPinsSnapshot(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for i := range 5 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"cm%d"}}`, i))
	}
	first := decodeList(t, c.get(cmPath+"?limit=2"))
	rv := first.Metadata["resourceVersion"]
	assert.Equal(t, []string{"default/cm0", "default/cm1"}, itemNames(t, first))
	assert.EqualValues(t, 3, first.Metadata["remainingItemCount"])
	cont := first.Metadata["continue"].(string)
	require.NotEmpty(t, cont)

	// Changes after the first page are invisible to later pages.
	c.mustCreate(cmPath, `{"metadata":{"name":"cm2a"}}`)
	r := c.do(http.MethodDelete, cmPath+"/cm3", "")
	require.Equal(t, http.StatusOK, r.code)

	second := decodeList(t, c.get(cmPath+"?limit=2&continue="+cont))
	assert.Equal(t, rv, second.Metadata["resourceVersion"], "every page reports the first page's resourceVersion")
	assert.Equal(t, []string{"default/cm2", "default/cm3"}, itemNames(t, second))
	third := decodeList(t, c.get(cmPath+"?limit=2&continue="+second.Metadata["continue"].(string)))
	assert.Equal(t, []string{"default/cm4"}, itemNames(t, third))
	assert.NotContains(t, third.Metadata, "continue")
	assert.NotContains(t, third.Metadata, "remainingItemCount")

	// A selector: no remainingItemCount; a later page may be empty.
	sel := decodeList(t, c.get(cmPath+"?limit=1&fieldSelector=metadata.name%3Dcm0"))
	assert.Equal(t, []string{"default/cm0"}, itemNames(t, sel))
	assert.NotContains(t, sel.Metadata, "remainingItemCount")
	require.NotEmpty(t, sel.Metadata["continue"])
	sel = decodeList(t, c.get(cmPath+"?limit=1&fieldSelector=metadata.name%3Dcm0&continue="+sel.Metadata["continue"].(string)))
	assert.Empty(t, sel.Items)
	assert.NotContains(t, sel.Metadata, "continue")

	// resourceVersion=0 ignores limit.
	all := decodeList(t, c.get(cmPath+"?limit=1&resourceVersion=0"))
	assert.Len(t, all.Items, 5)
	assert.NotContains(t, all.Metadata, "continue")
}

func TestListResourceVersionRules(t *testing.T) {
	s, c := newTestServer(t, Options{TooLargeResourceVersionWait: 50 * time.Millisecond})
	a := c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	rvA := a["metadata"].(map[string]any)["resourceVersion"].(string)
	c.mustCreate(cmPath, `{"metadata":{"name":"b"}}`)

	exact := decodeList(t, c.get(cmPath+"?resourceVersion="+rvA+"&resourceVersionMatch=Exact"))
	assert.Equal(t, rvA, exact.Metadata["resourceVersion"])
	assert.Equal(t, []string{"default/a"}, itemNames(t, exact))
	legacyExact := decodeList(t, c.get(cmPath+"?resourceVersion="+rvA+"&limit=10"))
	assert.Equal(t, []string{"default/a"}, itemNames(t, legacyExact), "RV=N with limit is exact")
	notOlder := decodeList(t, c.get(cmPath+"?resourceVersion="+rvA))
	assert.Len(t, notOlder.Items, 2)

	invalid := []struct{ q, msg string }{
		{"resourceVersionMatch=Exact", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"resourceVersion=0&resourceVersionMatch=Exact", `resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"resourceVersion=1&resourceVersionMatch=Bogus", `resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""`},
		{"sendInitialEvents=true", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
	}
	for _, tc := range invalid {
		r := c.get(cmPath + "?" + tc.q)
		require.Equal(t, http.StatusUnprocessableEntity, r.code, tc.q)
		st := r.status(t)
		assert.Equal(t, `ListOptions.meta.k8s.io "" is invalid: `+tc.msg, st.Message)
		assert.Equal(t, "ListOptions", st.Details.Kind)
	}
	r := c.get(cmPath + "?resourceVersion=abc")
	assert.Equal(t, http.StatusBadRequest, r.code)
	r = c.get(cmPath + "?resourceVersion=5&continue=x")
	assert.Equal(t, "specifying resource version is not allowed when using continue", r.status(t).Message)
	r = c.get(cmPath + "?continue=garbage")
	assert.Equal(t, http.StatusBadRequest, r.code)
	assert.Contains(t, r.status(t).Message, "invalid continue token: ")

	future := s.ResourceVersion() + 100
	r = c.get(fmt.Sprintf("%s?resourceVersion=%d", cmPath, future))
	require.Equal(t, http.StatusGatewayTimeout, r.code)
	st := r.status(t)
	assert.Equal(t, fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", future, s.ResourceVersion()), st.Message)
	assert.True(t, st.IsResourceVersionTooLarge())
	assert.Equal(t, "1", r.header.Get("Retry-After"))

	s.CompactNow()
	r = c.get(cmPath + "?resourceVersion=" + rvA + "&resourceVersionMatch=Exact")
	require.Equal(t, http.StatusGone, r.code)
	assert.Equal(t, "The resourceVersion for the provided list is too old.", r.status(t).Message)
}

func TestExpiredContinueOffersInconsistentToken(t *testing.T) {
	s, c := newTestServer(t, Options{})
	for i := range 3 {
		c.mustCreate(cmPath, fmt.Sprintf(`{"metadata":{"name":"cm%d"}}`, i))
	}
	first := decodeList(t, c.get(cmPath+"?limit=1"))
	c.mustCreate(cmPath, `{"metadata":{"name":"cm9"}}`)
	s.CompactNow()
	r := c.get(cmPath + "?limit=1&continue=" + first.Metadata["continue"].(string))
	require.Equal(t, http.StatusGone, r.code)
	st := r.status(t)
	assert.Equal(t, meta.ReasonExpired, st.Reason)
	assert.Contains(t, st.Message, "use the continue token in this response")
	require.NotEmpty(t, st.Continue)
	rest := decodeList(t, c.get(cmPath+"?continue="+st.Continue))
	assert.Equal(t, []string{"default/cm1", "default/cm2", "default/cm9"}, itemNames(t, rest), "the inconsistent token continues at the latest state")
}

func TestPartialObjectMetadataList(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"},"data":{"big":"x"}}`)
	r := c.get(cmPath, "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	l := decodeList(t, r)
	assert.Equal(t, "PartialObjectMetadataList", l.Kind)
	assert.Equal(t, "meta.k8s.io/v1", l.APIVersion)
	require.Len(t, l.Items, 1)
	assert.NotContains(t, string(l.Items[0]), `"data"`)
	assert.Contains(t, string(l.Items[0]), `"kind":"PartialObjectMetadata"`)

	// client-go's metadata client asks for protobuf first and gets it.
	r = c.get(cmPath, "Accept", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	pb := decodeProtobuf(t, r)
	assert.Contains(t, pb, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":`)
	assert.NotContains(t, pb, `"data"`)

	r = c.get(cmPath, "Accept", "application/vnd.kubernetes.protobuf")
	assert.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "application/vnd.kubernetes.protobuf", r.header.Get("Content-Type"))
	r = c.get(cmPath, "Accept", "application/json, application/vnd.kubernetes.protobuf")
	assert.Equal(t, http.StatusOK, r.code)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
}

func TestPrettyForCurl(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.get(cmPath, "User-Agent", "curl/8.5.0")
	assert.Contains(t, string(r.body), "{\n  \"kind\": \"ConfigMapList\"")
	r = c.get(cmPath)
	assert.Contains(t, string(r.body), `{"kind":"ConfigMapList"`)
	r = c.get(cmPath+"?pretty=true", "User-Agent", "Go-http-client/1.1")
	assert.Contains(t, string(r.body), "\n  ")
}
