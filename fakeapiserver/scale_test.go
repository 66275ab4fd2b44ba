package fakeapiserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

const webDeployment = `{"metadata":{"name":"web"},"spec":{"replicas":2,
	"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["b","a"]},{"key":"canary","operator":"DoesNotExist"}]},
	"template":{"metadata":{"labels":{"app":"web","tier":"a"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`

func decodeScaleBody(t *testing.T, r response) scaleObject {
	t.Helper()
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var sc scaleObject
	require.NoError(t, json.Unmarshal(r.body, &sc))
	return sc
}

func TestScaleGet(t *testing.T) {
	_, c := newTestServer(t, Options{})
	d := c.mustCreate(deployPath, webDeployment)
	sc := decodeScaleBody(t, c.get(deployPath+"/web/scale"))
	assert.Equal(t, "Scale", sc.Kind)
	assert.Equal(t, "autoscaling/v1", sc.APIVersion)
	md := d["metadata"].(map[string]any)
	assert.Equal(t, "web", sc.Metadata.Name)
	assert.Equal(t, "default", sc.Metadata.Namespace)
	assert.Equal(t, md["uid"], sc.Metadata.UID)
	assert.Equal(t, md["resourceVersion"], sc.Metadata.ResourceVersion)
	created, err := json.Marshal(md["creationTimestamp"])
	require.NoError(t, err)
	assert.JSONEq(t, string(created), string(mustField(t, mustField(t, c.get(deployPath+"/web/scale").body, "metadata"), "creationTimestamp")))
	require.NotNil(t, sc.Spec.Replicas)
	assert.EqualValues(t, 2, *sc.Spec.Replicas)
	assert.EqualValues(t, 0, sc.Status.Replicas, "no controller sets status")
	assert.Equal(t, "app=web,!canary,tier in (a,b)", sc.Status.Selector)

	r := c.get(deployPath + "/web/scale")
	assert.JSONEq(t, `{"replicas":0,"selector":"app=web,!canary,tier in (a,b)"}`, string(mustField(t, r.body, "status")))

	tr := c.get(deployPath+"/web/scale?includeObject=None", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	require.Equal(t, http.StatusOK, tr.code, "%s", tr.body)
	assert.JSONEq(t, `[{"cells":["web",2,0],"object":null}]`, string(mustField(t, tr.body, "rows")))

	assert.Equal(t, http.StatusNotFound, c.get(deployPath+"/missing/scale").code)
	assert.Equal(t, http.StatusNotFound, c.get(cmPathGC+"/x/scale").code, "configmaps have no scale")

	rc := "/api/v1/namespaces/default/replicationcontrollers"
	c.mustCreate(rc, `{"metadata":{"name":"old"},"spec":{"selector":{"b":"2","a":"1"},"template":{"metadata":{"labels":{"a":"1","b":"2"}},"spec":`+validPodSpec+`}}}`)
	sc = decodeScaleBody(t, c.get(rc+"/old/scale"))
	assert.Equal(t, "a=1,b=2", sc.Status.Selector)
	require.NotNil(t, sc.Spec.Replicas)
	assert.EqualValues(t, 1, *sc.Spec.Replicas, "spec.replicas defaults to 1")
}

func mustField(t *testing.T, body []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m))
	return m[key]
}

func TestScaleUpdateChangesTheParent(t *testing.T) {
	_, c := newTestServer(t, Options{})
	d := c.mustCreate(deployPath, webDeployment)
	rv := d["metadata"].(map[string]any)["resourceVersion"].(string)
	watch := c.watch(deployPath + "?watch=1&resourceVersion=" + rv)

	r := c.do(http.MethodPut, deployPath+"/web/scale", `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","resourceVersion":"`+rv+`"},"spec":{"replicas":5}}`)
	sc := decodeScaleBody(t, r)
	assert.EqualValues(t, 5, *sc.Spec.Replicas)
	assert.NotEqual(t, rv, sc.Metadata.ResourceVersion)

	got := c.get(deployPath + "/web").object(t)
	assert.EqualValues(t, 5, got["spec"].(map[string]any)["replicas"])
	assert.EqualValues(t, 2, got["metadata"].(map[string]any)["generation"])
	e := watch.next()
	assert.Equal(t, "MODIFIED", e.Type)
	assert.Equal(t, sc.Metadata.ResourceVersion, e.meta(t).ResourceVersion)
	assert.Contains(t, string(e.Object), `"replicas":5`)
	var mf []struct {
		Subresource string `json:"subresource"`
	}
	require.NoError(t, json.Unmarshal(mustField(t, mustField(t, c.get(deployPath+"/web").body, "metadata"), "managedFields"), &mf))
	assert.Equal(t, "scale", mf[len(mf)-1].Subresource, "the write is recorded for the scale subresource")

	// A stale resourceVersion is a conflict on the parent.
	r = c.do(http.MethodPut, deployPath+"/web/scale", `{"metadata":{"name":"web","resourceVersion":"`+rv+`"},"spec":{"replicas":6}}`)
	require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	assert.Equal(t, `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`, r.status(t).Message)

	// Without one, the write applies to the latest version.
	sc = decodeScaleBody(t, c.do(http.MethodPut, deployPath+"/web/scale", `{"metadata":{"name":"web"},"spec":{"replicas":0}}`))
	assert.Nil(t, sc.Spec.Replicas, "zero replicas are omitted, as in autoscaling/v1")
	assert.EqualValues(t, 0, c.get(deployPath + "/web").object(t)["spec"].(map[string]any)["replicas"])

	// The same replica count again is a no-op: no new resourceVersion.
	again := decodeScaleBody(t, c.do(http.MethodPut, deployPath+"/web/scale", `{"metadata":{"name":"web"},"spec":{}}`))
	assert.Equal(t, sc.Metadata.ResourceVersion, again.Metadata.ResourceVersion)
}

func TestScaleRejectsBadBodies(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(deployPath, webDeployment)
	for _, tc := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"metadata":{"name":"web"},"spec":{"replicas":-1}}`, 422, `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		{`{"metadata":{"name":"other"},"spec":{"replicas":1}}`, 400, `the name of the object (other) does not match the name on the URL (web)`},
		{`{"spec":{"replicas":1}}`, 400, `the name of the object (web based on URL) was undeterminable: name must be provided`},
		{`{"kind":"Deployment","metadata":{"name":"web"}}`, 400, `the body must be a Scale (autoscaling/v1), not Deployment`},
		{`{"metadata":{"name":"web"},"spec":{"replicas":"many"}}`, 400, ""},
		{`{"metadata":{"name":"web"},"spec":{"replicas":1.5}}`, 400, ""},
		{`{"metadata":{"name":"web"},"spec":{"replicas":4294967296}}`, 400, ""},
		{`[`, 400, ""},
	} {
		r := c.do(http.MethodPut, deployPath+"/web/scale", tc.body)
		require.Equal(t, tc.code, r.code, "%s: %s", tc.body, r.body)
		if tc.msg != "" {
			assert.Equal(t, tc.msg, r.status(t).Message, tc.body)
		}
	}
	assert.EqualValues(t, 2, c.get(deployPath + "/web").object(t)["spec"].(map[string]any)["replicas"], "nothing was written")
	assert.Equal(t, http.StatusMethodNotAllowed, c.do(http.MethodDelete, deployPath+"/web/scale", "").code)
	assert.Equal(t, http.StatusUnsupportedMediaType, c.do(http.MethodPatch, deployPath+"/web/scale", `{}`, "Content-Type", "text/plain").code)
}

func TestScalePatch(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate("/apis/apps/v1/namespaces/default/statefulsets", `{"metadata":{"name":"db"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"db"}},
		"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres"}]}}}}`)
	path := "/apis/apps/v1/namespaces/default/statefulsets/db/scale"
	for _, tc := range []struct {
		contentType, body string
		want              int64
	}{
		{mediaMergePatch, `{"spec":{"replicas":3}}`, 3},
		{mediaStrategicPatch, `{"spec":{"replicas":4}}`, 4},
		{mediaJSONPatch, `[{"op":"replace","path":"/spec/replicas","value":7}]`, 7},
	} {
		sc := decodeScaleBody(t, c.do(http.MethodPatch, path, tc.body, "Content-Type", tc.contentType))
		assert.EqualValues(t, tc.want, *sc.Spec.Replicas, tc.contentType)
		assert.EqualValues(t, tc.want, c.get("/apis/apps/v1/namespaces/default/statefulsets/db").object(t)["spec"].(map[string]any)["replicas"])
	}
	r := c.do(http.MethodPatch, path, `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":9}}`, "Content-Type", mediaMergePatch)
	assert.Equal(t, http.StatusConflict, r.code, "a patch that sets a stale resourceVersion conflicts: %s", r.body)
	r = c.do(http.MethodPatch, path, `[{"op":"test","path":"/spec/replicas","value":1}]`, "Content-Type", mediaJSONPatch)
	assert.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	r = c.do(http.MethodPatch, path+"?dryRun=All", `{"spec":{"replicas":1}}`, "Content-Type", mediaMergePatch)
	assert.EqualValues(t, 1, *decodeScaleBody(t, r).Spec.Replicas)
	assert.EqualValues(t, 7, c.get("/apis/apps/v1/namespaces/default/statefulsets/db").object(t)["spec"].(map[string]any)["replicas"], "dry run")
}

const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gadgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{},
    "scale":{"specReplicasPath":".spec.size","statusReplicasPath":".status.size","labelSelectorPath":".status.selector"}},
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

func TestScaleCustomResource(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, gadgetCRD)
	c.mustCreate(crdPath, widgetCRD)
	const gadgets = "/apis/example.com/v1/namespaces/default/gadgets"
	g := c.mustCreate(gadgets, `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"},"spec":{"color":"red"}}`)
	r := c.do(http.MethodPut, gadgets+"/g/status", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","resourceVersion":"`+
		g["metadata"].(map[string]any)["resourceVersion"].(string)+`"},"status":{"size":2,"selector":"app=g"}}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	sc := decodeScaleBody(t, c.get(gadgets+"/g/scale"))
	assert.Nil(t, sc.Spec.Replicas, "no spec.size yet: zero")
	assert.EqualValues(t, 2, sc.Status.Replicas)
	assert.Equal(t, "app=g", sc.Status.Selector)

	sc = decodeScaleBody(t, c.do(http.MethodPatch, gadgets+"/g/scale", `{"spec":{"replicas":3}}`, "Content-Type", mediaMergePatch))
	assert.EqualValues(t, 3, *sc.Spec.Replicas)
	obj := c.get(gadgets + "/g").object(t)
	assert.Equal(t, map[string]any{"color": "red", "size": float64(3)}, obj["spec"])
	assert.EqualValues(t, 2, obj["metadata"].(map[string]any)["generation"])

	c.mustCreate(widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	assert.Equal(t, http.StatusNotFound, c.get(widgetPath+"/w/scale").code, "a CRD without subresources.scale has none")
}

// FuzzDecodeScale feeds arbitrary bodies to the Scale decoder: it must
// answer a Status (never panic) and accept only what it can write.
func FuzzDecodeScale(f *testing.F) {
	for _, seed := range []string{
		`{"metadata":{"name":"web"},"spec":{"replicas":3}}`,
		`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","resourceVersion":"12"},"spec":{}}`,
		`{"metadata":{"name":"web"},"spec":{"replicas":-1}}`,
		`{"metadata":{"name":"x"}}`, `null`, `[]`, `{"spec":{"replicas":1e99}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := decodeScale(body, "web")
		if err != nil {
			var st *meta.Status
			require.True(t, errors.As(err, &st), "%v", err)
			assert.Contains(t, []int32{400, 422}, st.Code)
			return
		}
		assert.Equal(t, "web", in.Metadata.Name)
		if in.Spec.Replicas != nil {
			assert.GreaterOrEqual(t, *in.Spec.Replicas, int64(0))
		}
	})
}
