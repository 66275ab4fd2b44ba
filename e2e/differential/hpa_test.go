package differential

import "testing"

// TestHPAVersions writes one HorizontalPodAutoscaler through
// autoscaling/v1 and v2 (stored as v2, converted for v1): each answer's
// managedFields are recorded at the version written, an entry at one
// version loses what a write at the other changes there, and server-side
// apply conflicts are named in the entry's own version's fields. A
// metadata-only read at v1 carries no conversion annotations.
func TestHPAVersions(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-hpa")
	const (
		v1 = "/apis/autoscaling/v1/namespaces/{ns}/horizontalpodautoscalers"
		v2 = "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers"
	)
	ref := `"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}`
	apply := func(path, query, body string) Request {
		return patch(path+query, "application/apply-patch+yaml", body)
	}
	c.Compare("create at v1", post(v1+"?fieldManager=one", `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{`+ref+`,"maxReplicas":5}}`))
	c.Compare("merge patch at v2", patch(v2+"/h?fieldManager=two", "application/merge-patch+json",
		`{"spec":{"maxReplicas":7,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]}}`))
	c.Compare("get at v1", get(v1+"/h"))

	applyV1 := func(rest string) string {
		return `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"s"},"spec":{` + ref + rest + `}}`
	}
	applyV2 := `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"s"},"spec":{` + ref +
		`,"maxReplicas":6,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`
	c.Compare("apply creates at v1", apply(v1+"/s", "?fieldManager=ap", applyV1(`,"maxReplicas":5,"targetCPUUtilizationPercentage":70`)))
	c.Compare("apply again at v1", apply(v1+"/s", "?fieldManager=ap", applyV1(`,"maxReplicas":5,"targetCPUUtilizationPercentage":60`)))
	c.Compare("apply at v2 conflicts", apply(v2+"/s", "?fieldManager=ap2", applyV2))
	c.Compare("apply at v1 without the target", apply(v1+"/s", "?fieldManager=ap", applyV1(`,"maxReplicas":5`)))
	c.Compare("apply at v2 with force", apply(v2+"/s", "?fieldManager=ap2&force=true", applyV2))
	c.Compare("update at v1", patch(v1+"/s?fieldManager=upd", "application/merge-patch+json", `{"spec":{"minReplicas":2,"targetCPUUtilizationPercentage":40}}`))
	c.Compare("get at v2", get(v2+"/s"))

	c.Compare("create at v2 with a memory metric", post(v2, `{"metadata":{"name":"mm"},"spec":{`+ref+
		`,"maxReplicas":4,"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}}]}}`))
	c.Compare("get at v1 (conversion annotations)", get(v1+"/mm"))
	partial := get(v1 + "/mm")
	partial.Header = map[string]string{"Accept": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}
	c.Compare("metadata-only get at v1", partial)
	list := get(v1)
	list.Header = map[string]string{"Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}
	c.Compare("metadata-only list at v1", list)
}
