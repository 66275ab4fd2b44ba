package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// managedSummary lists an object's managedFields entries as
// "manager operation apiVersion fieldsV1", without their times.
func managedSummary(t *testing.T, obj map[string]any) []string {
	t.Helper()
	entries, _ := obj["metadata"].(map[string]any)["managedFields"].([]any)
	var out []string
	for _, e := range entries {
		m := e.(map[string]any)
		fields, err := json.Marshal(m["fieldsV1"])
		require.NoError(t, err)
		out = append(out, m["manager"].(string)+" "+m["operation"].(string)+" "+m["apiVersion"].(string)+" "+string(fields))
	}
	return out
}

// The expectations below are a real kube-apiserver v1.37.2's answers to
// the same requests.

func TestHPAManagedFieldsAtWrittenVersion(t *testing.T) {
	_, c := newTestServer(t, Options{})
	// Written at v1: the entry is at v1, in v1's fields (its
	// scaleTargetRef is atomic), with the defaulted target.
	created := c.mustCreate(hpaV1Path+"?fieldManager=one", `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":5}}`)
	assert.Equal(t, []string{
		`one Update autoscaling/v1 {"f:spec":{"f:maxReplicas":{},"f:minReplicas":{},"f:scaleTargetRef":{},"f:targetCPUUtilizationPercentage":{}}}`,
	}, managedSummary(t, created))

	// Changed at v2: the v1 entry loses the fields the change touched as
	// v1 sees them (the CPU target is spec.metrics at v2).
	v2 := c.get(hpaV2Path + "/h").object(t)
	spec := v2["spec"].(map[string]any)
	spec["maxReplicas"] = 7
	spec["metrics"].([]any)[0].(map[string]any)["resource"].(map[string]any)["target"].(map[string]any)["averageUtilization"] = 60
	body, err := json.Marshal(v2)
	require.NoError(t, err)
	u := c.do(http.MethodPut, hpaV2Path+"/h?fieldManager=two", string(body))
	require.Equal(t, http.StatusOK, u.code, "%s", u.body)
	assert.Equal(t, []string{
		`one Update autoscaling/v1 {"f:spec":{"f:minReplicas":{},"f:scaleTargetRef":{}}}`,
		`two Update autoscaling/v2 {"f:spec":{"f:maxReplicas":{},"f:metrics":{}}}`,
	}, managedSummary(t, u.object(t)))
	assert.Equal(t, managedSummary(t, u.object(t)), managedSummary(t, c.get(hpaV1Path+"/h").object(t)), "read at v1")
}

func TestHPAServerSideApplyAtV1(t *testing.T) {
	_, c := newTestServer(t, Options{})
	apply := func(path, manager, body string) response {
		t.Helper()
		return c.do(http.MethodPatch, path+"?fieldManager="+manager, body, "Content-Type", "application/apply-patch+yaml")
	}
	v1 := func(name, rest string) string {
		return `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"` + name + `"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}` + rest + `}}`
	}
	v2 := `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"s"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":6,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`

	r := apply(hpaV1Path+"/s", "ap", v1("s", `,"maxReplicas":5,"targetCPUUtilizationPercentage":70`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	apV1 := `ap Apply autoscaling/v1 {"f:spec":{"f:maxReplicas":{},"f:scaleTargetRef":{},"f:targetCPUUtilizationPercentage":{}}}`
	assert.Equal(t, []string{apV1}, managedSummary(t, r.object(t)))
	assert.Equal(t, float64(70), r.object(t)["spec"].(map[string]any)["targetCPUUtilizationPercentage"])

	r = apply(hpaV1Path+"/s", "ap", v1("s", `,"maxReplicas":5,"targetCPUUtilizationPercentage":60`))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []string{apV1}, managedSummary(t, r.object(t)))
	assert.Equal(t, float64(60), r.object(t)["spec"].(map[string]any)["targetCPUUtilizationPercentage"])

	// Another manager at v2 conflicts on the v1 manager's fields, named
	// as v1 names them.
	r = apply(hpaV2Path+"/s", "ap2", v2)
	require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	assert.Equal(t, "Apply failed with 2 conflicts: conflicts with \"ap\":\n- .spec.maxReplicas\n- .spec.targetCPUUtilizationPercentage", r.status(t).Message)

	// Leaving the target out gives it up; the default comes back.
	r = apply(hpaV1Path+"/s", "ap", v1("s", `,"maxReplicas":5`))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []string{`ap Apply autoscaling/v1 {"f:spec":{"f:maxReplicas":{},"f:scaleTargetRef":{}}}`}, managedSummary(t, r.object(t)))
	assert.Equal(t, float64(80), r.object(t)["spec"].(map[string]any)["targetCPUUtilizationPercentage"])

	r = c.do(http.MethodPatch, hpaV2Path+"/s?fieldManager=ap2&force=true", v2, "Content-Type", "application/apply-patch+yaml")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []string{
		`ap Apply autoscaling/v1 {"f:spec":{"f:scaleTargetRef":{}}}`,
		`ap2 Apply autoscaling/v2 {"f:spec":{"f:maxReplicas":{},"f:metrics":{},"f:scaleTargetRef":{"f:apiVersion":{},"f:kind":{},"f:name":{}}}}`,
	}, managedSummary(t, r.object(t)))
	assert.Equal(t, map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "d", "apiVersion": "apps/v1"},
		"minReplicas": float64(1), "maxReplicas": float64(6), "targetCPUUtilizationPercentage": float64(50)}, c.get(hpaV1Path + "/s").object(t)["spec"])

	// An update at v1 of an applied object.
	r = apply(hpaV1Path+"/c", "ap", v1("c", `,"maxReplicas":5,"targetCPUUtilizationPercentage":70`))
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	obj := r.object(t)
	obj["spec"].(map[string]any)["minReplicas"] = 2
	obj["spec"].(map[string]any)["targetCPUUtilizationPercentage"] = 40
	body, err := json.Marshal(obj)
	require.NoError(t, err)
	r = c.do(http.MethodPut, hpaV1Path+"/c?fieldManager=upd", string(body))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, []string{
		`ap Apply autoscaling/v1 {"f:spec":{"f:maxReplicas":{},"f:scaleTargetRef":{}}}`,
		`upd Update autoscaling/v1 {"f:spec":{"f:minReplicas":{},"f:targetCPUUtilizationPercentage":{}}}`,
	}, managedSummary(t, r.object(t)))
}

func TestHPAMetadataOnlyAtV1(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(hpaV2Path, `{"metadata":{"name":"mm"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":4,
		"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}}]}}`)
	full := c.get(hpaV1Path + "/mm").object(t)
	assert.Contains(t, full["metadata"].(map[string]any)["annotations"], "autoscaling.alpha.kubernetes.io/metrics")
	// The real server takes an object's metadata before any conversion:
	// a metadata-only read at v1 has none of the conversion's
	// annotations, alone, in a list and in protobuf.
	partial := c.get(hpaV1Path+"/mm", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1").object(t)
	assert.Equal(t, "PartialObjectMetadata", partial["kind"])
	assert.NotContains(t, partial["metadata"], "annotations")
	list := c.get(hpaV1Path, "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1").object(t)
	require.Len(t, list["items"], 1)
	assert.NotContains(t, list["items"].([]any)[0].(map[string]any)["metadata"], "annotations")
	pb := c.get(hpaV1Path+"/mm", "Accept", mediaProtobuf+";as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	require.Equal(t, http.StatusOK, pb.code)
	assert.NotContains(t, decodeProtobuf(t, pb), "autoscaling.alpha")
	assert.Contains(t, decodeProtobuf(t, pb), `"name":"mm"`)
}
