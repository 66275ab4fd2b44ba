package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// serve sends one request straight to the handler.
func serve(s *Server, method, path, ctype, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

const (
	cmsPath  = "/api/v1/namespaces/default/configmaps"
	depsPath = "/apis/apps/v1/namespaces/default/deployments"
)

func cmBody(rest string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}` + rest + `}`
}

func depBody(spec string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":` + spec + `}`
}

// podSpecBody is a Deployment whose single container and pod spec get the
// extra members given.
func podSpecBody(container, pod string) string {
	return depBody(`{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"` + container + `}]` + pod + `}}}`)
}

// The messages below are a real kube-apiserver v1.37.2's answers to the
// same bodies.
func TestWrongTypesAreRefusedAsTheRealServerRefusesThem(t *testing.T) {
	s := NewForTest(t, Options{})
	cm := `ConfigMap in version "v1" cannot be handled as a ConfigMap: `
	dep := `Deployment in version "v1" cannot be handled as a Deployment: `
	cases := []struct {
		what, path, body, want string
	}{
		{"map given a list", cmsPath, cmBody(`,"data":[1]`), cm + "json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string"},
		{"map value given a number", cmsPath, cmBody(`,"data":{"a":1}`), cm + "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
		{"labels value given a number", cmsPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"a":1}}}`, cm + "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"},
		{"labels given a list", cmsPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":[]}}`, cm + "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"},
		{"bool given a string", cmsPath, cmBody(`,"immutable":"yes"`), cm + "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool"},
		{"bad base64", cmsPath, cmBody(`,"binaryData":{"x":"!!!"}`), cm + "illegal base64 data at input byte 0"},
		{"int32 given a string", depsPath, depBody(`{"replicas":"two"}`), dep + "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"int32 given a bool", depsPath, depBody(`{"replicas":true}`), dep + "json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"int32 overflow", depsPath, depBody(`{"replicas":3000000000}`), dep + "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"int32 given a fraction", depsPath, depBody(`{"replicas":1.5}`), dep + "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"int32 given an exponent", depsPath, depBody(`{"replicas":1e2}`), dep + "json: cannot unmarshal number 1e2 into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"struct given a string", depsPath, depBody(`"x"`), dep + "json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec"},
		{"nested struct given a string", depsPath, depBody(`{"selector":"x"}`), dep + "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector"},
		{"list given an object", depsPath, depBody(`{"template":{"spec":{"containers":{}}}}`), dep + "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container"},
		{"list item given a number", depsPath, depBody(`{"template":{"spec":{"containers":[1]}}}`), dep + "json: cannot unmarshal number into Go struct field PodSpec.spec.template.spec.containers of type v1.Container"},
		{"field of a list item", depsPath, podSpecBody(`,"ports":[{"containerPort":"80"}]`, ``), dep + "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32"},
		{"string list item given a number", depsPath, podSpecBody(`,"args":[1]`, ``), dep + "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.args of type string"},
		{"int64 overflow", depsPath, podSpecBody(``, `,"activeDeadlineSeconds":9223372036854775808`), dep + "json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.template.spec.activeDeadlineSeconds of type int64"},
		{"int64 given 1e30", depsPath, podSpecBody(``, `,"activeDeadlineSeconds":1e30`), dep + "json: cannot unmarshal number 1e30 into Go struct field PodSpec.spec.template.spec.activeDeadlineSeconds of type int64"},
		{"bool in a pod spec", depsPath, podSpecBody(``, `,"hostNetwork":"true"`), dep + "json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.hostNetwork of type bool"},
		{"quantity given a bool", depsPath, podSpecBody(`,"resources":{"limits":{"cpu":true}}`, ``), dep + validation.QuantityFormatWrong},
		{"quantity given a word", depsPath, podSpecBody(`,"resources":{"limits":{"cpu":"abc"}}`, ``), dep + validation.QuantityFormatWrong},
		{"int-or-string given a bool", depsPath, depBody(`{"strategy":{"rollingUpdate":{"maxSurge":true}}}`), dep + "json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"},
		{"int-or-string given a fraction", depsPath, depBody(`{"strategy":{"rollingUpdate":{"maxSurge":1.5}}}`), dep + "json: cannot unmarshal number 1.5 into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"},
		{"timestamp given a number", depsPath, depBody(`{"template":{"metadata":{"creationTimestamp":5}}}`), dep + "json: cannot unmarshal number into Go struct field ObjectMeta.spec.template.metadata.creationTimestamp of type string"},
		{"timestamp that does not parse", depsPath, depBody(`{"template":{"metadata":{"creationTimestamp":"yesterday"}}}`), dep + `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"a type error wins over an unknown field", depsPath, depBody(`{"bogus":1,"replicas":"x"}`), dep + "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"the first type error is reported", depsPath, depBody(`{"replicas":"x","paused":1}`), dep + "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"},
		{"a quantity error wins over an earlier type error", depsPath, depBody(`{"replicas":"x","template":{"spec":{"containers":[{"resources":{"limits":{"cpu":"abc"}}}]}}}`), dep + validation.QuantityFormatWrong},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			for _, method := range []string{http.MethodPost, http.MethodPut} {
				path := c.path
				if method == http.MethodPut {
					path += "/a"
				}
				rec := serve(s, method, path+"?dryRun=All", "application/json", c.body)
				require.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", method, rec.Body)
				var st meta.Status
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
				assert.Equal(t, meta.ReasonBadRequest, st.Reason)
				assert.Equal(t, c.want, st.Message, method)
			}
		})
	}
}

// What the real server accepts: null anywhere, quantities as numbers or
// strings, int-or-string either way, nulls inside lists and maps.
func TestWellTypedBodiesAreAccepted(t *testing.T) {
	s := NewForTest(t, Options{})
	for _, body := range []string{
		cmBody(`,"data":null`),
		cmBody(`,"data":{"a":null}`),
		cmBody(`,"binaryData":{"x":"aGVsbG8="}`),
		depBody(`{"replicas":null,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}`),
		depBody(`{"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}`),
		depBody(`{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"},"creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"i"}]}}}`),
		depBody(`{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"},"creationTimestamp":"2026-11-30T03:00:23Z"},"spec":{"containers":[{"name":"c","image":"i"}]}}}`),
		podSpecBody(`,"resources":{"limits":{"cpu":1,"memory":"1Gi"},"requests":{"cpu":"100m","memory":1.5}}`, ``),
		podSpecBody(`,"resources":{"limits":{"cpu":null,"memory":"1e3","ephemeral-storage":"+1.5E-2"}}`, ``),
		podSpecBody(`,"args":[null],"env":null`, `,"activeDeadlineSeconds":null,"nodeSelector":{"a":null}`),
	} {
		rec := serve(s, http.MethodPost, pathFor(body)+"?dryRun=All", "application/json", body)
		assert.Equal(t, http.StatusCreated, rec.Code, "%s: %s", body, rec.Body)
	}
}

func pathFor(body string) string {
	if strings.Contains(body, `"kind":"Deployment"`) {
		return depsPath
	}
	return cmsPath
}

// Unknown and duplicate fields come from the same walk: Warning headers by
// default, the error under Strict, nothing under Ignore. The wording and
// order are the real server's.
func TestUnknownAndDuplicateFields(t *testing.T) {
	s := NewForTest(t, Options{})
	body := `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"},"data":{"c":"d"},"metadata":{"name":"a","zz":1},"bogus":2}`
	fields := []string{`duplicate field "data"`, `unknown field "metadata.zz"`, `unknown field "bogus"`}

	rec := serve(s, http.MethodPost, cmsPath+"?dryRun=All", "application/json", body)
	require.Equal(t, http.StatusCreated, rec.Code, "%s", rec.Body)
	var warnings []string
	for _, h := range rec.Header().Values("Warning") {
		msg, err := strconv.Unquote(strings.TrimPrefix(h, "299 - "))
		require.NoError(t, err, h)
		warnings = append(warnings, msg)
	}
	assert.Equal(t, fields, warnings)

	rec = serve(s, http.MethodPost, cmsPath+"?dryRun=All&fieldValidation=Ignore", "application/json", body)
	require.Equal(t, http.StatusCreated, rec.Code, "%s", rec.Body)
	assert.Empty(t, rec.Header().Values("Warning"))
	// Unknown fields are dropped, as decoding into the Go type drops them.
	assert.NotContains(t, rec.Body.String(), "bogus")
	assert.NotContains(t, rec.Body.String(), "zz")
	assert.Contains(t, rec.Body.String(), `"data":{"c":"d"}`)

	rec = serve(s, http.MethodPost, cmsPath+"?dryRun=All&fieldValidation=Strict", "application/json", body)
	require.Equal(t, http.StatusBadRequest, rec.Code, "%s", rec.Body)
	var st meta.Status
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.Equal(t, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: `+strings.Join(fields, ", "), st.Message)

	// Nested unknown fields carry list indexes.
	rec = serve(s, http.MethodPost, depsPath+"?dryRun=All", "application/json", podSpecBody(`,"bogus":1,"ports":[{"containerPort":80,"bogus":1}]`, `,"containers2":1`))
	require.Equal(t, http.StatusCreated, rec.Code, "%s", rec.Body)
	assert.NotContains(t, rec.Body.String(), "bogus")
	assert.NotContains(t, rec.Body.String(), "containers2")
	assert.Contains(t, rec.Body.String(), `"ports":[{"containerPort":80,"protocol":"TCP"}]`, "defaulted as on the real server")
	assert.Equal(t, []string{
		`299 - "unknown field \"spec.template.spec.containers[0].bogus\""`,
		`299 - "unknown field \"spec.template.spec.containers[0].ports[0].bogus\""`,
		`299 - "unknown field \"spec.template.spec.containers2\""`,
	}, rec.Header().Values("Warning"))
}

// A patch whose result has a wrong type or, under Strict, an unknown field
// is the real server's 422 on the field "patch", quoting the result.
func TestPatchResultsAreTypeChecked(t *testing.T) {
	s := NewForTest(t, Options{})
	rec := serve(s, http.MethodPost, cmsPath, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"a":"b"}}`)
	require.Equal(t, http.StatusCreated, rec.Code, "%s", rec.Body)
	cases := []struct {
		what, query, ctype, patch, want string
	}{
		{"merge patch", "", "application/merge-patch+json", `{"data":{"a":1}}`, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
		{"strategic merge patch", "", "application/strategic-merge-patch+json", `{"data":{"a":1}}`, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
		{"JSON patch", "", "application/json-patch+json", `[{"op":"add","path":"/data/b","value":true}]`, "json: cannot unmarshal bool into Go struct field ConfigMap.data of type string"},
		{"strict merge patch", "?fieldValidation=Strict", "application/merge-patch+json", `{"bogus":1}`, `strict decoding error: unknown field "bogus"`},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			rec := serve(s, http.MethodPatch, cmsPath+"/p"+c.query, c.ctype, c.patch)
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%s", rec.Body)
			var st meta.Status
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
			assert.Equal(t, meta.ReasonInvalid, st.Reason)
			assert.Regexp(t, `^ "" is invalid: patch: Invalid value: "\{.*\}": `+regexp.QuoteMeta(c.want)+`$`, st.Message)
			require.NotNil(t, st.Details)
			require.Len(t, st.Details.Causes, 1)
			assert.Equal(t, "patch", st.Details.Causes[0].Field)
			assert.Equal(t, meta.CauseFieldValueInvalid, st.Details.Causes[0].Type)
		})
	}
	// Without Strict the unknown field is a warning and the patch applies.
	rec = serve(s, http.MethodPatch, cmsPath+"/p", "application/merge-patch+json", `{"bogus":1}`)
	require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
	assert.Equal(t, []string{`299 - "unknown field \"bogus\""`}, rec.Header().Values("Warning"))
}

// An apply configuration that does not fit the schema: the real server's
// message, as a 400 (the real server answers 500; the fake server never
// does).
func TestApplyOfAWrongTypeIsABadRequest(t *testing.T) {
	s := NewForTest(t, Options{})
	rec := serve(s, http.MethodPatch, cmsPath+"/p?fieldManager=m", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"a":1}}`)
	require.Equal(t, http.StatusBadRequest, rec.Code, "%s", rec.Body)
	var st meta.Status
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.Equal(t, meta.ReasonBadRequest, st.Reason)
	assert.Equal(t, "failed to create typed patch object (/p; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:1}", st.Message)
}
