package fakeapiserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	hpaV1Path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpaV2Path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
)

// withoutManaged drops metadata.managedFields from a decoded object.
func withoutManaged(obj map[string]any) map[string]any {
	delete(obj["metadata"].(map[string]any), "managedFields")
	return obj
}

func TestHPAVersionsConvert(t *testing.T) {
	_, c := newTestServer(t, Options{})
	// Written at v1, read at both versions in each one's shape.
	c.mustCreate(hpaV1Path, `{"metadata":{"name":"web"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":5,"targetCPUUtilizationPercentage":70}}`)
	v1 := withoutManaged(c.get(hpaV1Path + "/web").object(t))
	assert.Equal(t, map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
		"minReplicas": float64(2), "maxReplicas": float64(5), "targetCPUUtilizationPercentage": float64(70)}, v1["spec"])
	assert.Equal(t, map[string]any{"currentReplicas": float64(0), "desiredReplicas": float64(0)}, v1["status"])
	v2 := withoutManaged(c.get(hpaV2Path + "/web").object(t))
	assert.Equal(t, "autoscaling/v2", v2["apiVersion"])
	assert.Equal(t, map[string]any{"scaleTargetRef": map[string]any{"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
		"minReplicas": float64(2), "maxReplicas": float64(5),
		"metrics": []any{map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": float64(70)}}}}}, v2["spec"])
	assert.Equal(t, map[string]any{"desiredReplicas": float64(0), "currentMetrics": nil}, v2["status"])

	// Written at v2 with what v1 cannot say: v1 carries it in annotations.
	c.mustCreate(hpaV2Path, `{"metadata":{"name":"h2"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":4,
		"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
		{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}},
		{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}}],
		"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}}}`)
	r := c.get(hpaV1Path + "/h2")
	require.Equal(t, http.StatusOK, r.code)
	// The real server's answer, byte for byte but for uid and times.
	want := `{"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v1","metadata":{"name":"h2","namespace":"default","uid":"UID","resourceVersion":"RV","generation":1,"creationTimestamp":"TS",` +
		`"annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null},\"ScaleDown\":{\"StabilizationWindowSeconds\":60,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}],\"Tolerance\":null}}",` +
		`"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"100Mi\"}},{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"10\"}}]"}},` +
		`"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":4,"targetCPUUtilizationPercentage":50},"status":{"currentReplicas":0,"desiredReplicas":0}}`
	got := withoutManaged(r.object(t))
	m := got["metadata"].(map[string]any)
	m["uid"], m["resourceVersion"], m["creationTimestamp"] = "UID", "RV", "TS"
	data, err := jsonMarshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(data))

	// A v1 update that keeps the annotations round-trips the v2 fields.
	v2Before := withoutManaged(c.get(hpaV2Path + "/h2").object(t))
	obj := r.object(t)
	obj["spec"].(map[string]any)["maxReplicas"] = 6
	body, err := jsonMarshal(obj)
	require.NoError(t, err)
	u := c.do(http.MethodPut, hpaV1Path+"/h2", string(body))
	require.Equal(t, http.StatusOK, u.code, "%s", u.body)
	v2After := withoutManaged(c.get(hpaV2Path + "/h2").object(t))
	v2Before["spec"].(map[string]any)["maxReplicas"] = float64(6)
	// As on the real server, the CPU target comes back after the metrics
	// of the annotation.
	ms := v2Before["spec"].(map[string]any)["metrics"].([]any)
	v2Before["spec"].(map[string]any)["metrics"] = []any{ms[0], ms[2], ms[1]}
	assert.Equal(t, v2Before["spec"], v2After["spec"])
	assert.Nil(t, v2After["metadata"].(map[string]any)["annotations"], "the conversion's annotations are not stored")

	// Lists, watches and protobuf see the same shapes.
	list := c.get(hpaV1Path).object(t)
	items := list["items"].([]any)
	require.Len(t, items, 2)
	assert.Contains(t, items[1].(map[string]any)["spec"], "targetCPUUtilizationPercentage")
	pb := c.get(hpaV1Path, "Accept", mediaProtobuf)
	assert.True(t, strings.Contains(decodeProtobuf(t, pb), `"targetCPUUtilizationPercentage":50`))
}

func TestKubectlAutoscale(t *testing.T) {
	s, c := newTestServer(t, Options{})
	k := newKubectl(t, s)
	k.run("create", "deployment", "web", "--image=nginx")
	assert.Equal(t, "horizontalpodautoscaler.autoscaling/web autoscaled\n", k.run("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=70"))
	assert.Equal(t, "horizontalpodautoscaler.autoscaling/h3 autoscaled\n", k.run("autoscale", "deployment", "web", "--max=3", "--name=h3"))
	c.mustCreate(hpaV2Path, `{"metadata":{"name":"h2"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":6,
		"metrics":[{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
		{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}},
		{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`)
	rows := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(k.run("get", "hpa", "--no-headers")), "\n") {
		f := strings.Split(strings.Join(strings.Fields(line), " "), " ")
		rows[f[0]] = f
	}
	// The real server's rows, but for AGE.
	assert.Equal(t, "web Deployment/web cpu: <unknown>/70% 2 5 0", strings.Join(rows["web"][:len(rows["web"])-1], " "))
	assert.Equal(t, "h3 Deployment/web cpu: <unknown>/80% 1 3 0", strings.Join(rows["h3"][:len(rows["h3"])-1], " "))
	assert.Equal(t, "h2 Deployment/web memory: <unknown>/100Mi, <unknown>/10 + 1 more... 1 6 0", strings.Join(rows["h2"][:len(rows["h2"])-1], " "))
	assert.Contains(t, k.run("get", "--raw", hpaV1Path+"/web"), `"targetCPUUtilizationPercentage":70`)
}
