package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

func parse(t *testing.T, s string) jsonv.Value {
	t.Helper()
	res, err := jsonv.Parse([]byte(s))
	require.NoError(t, err)
	return res.Value
}

// TestDefaultKeepsWhatIsSet checks the rules for a value already given: a
// pointer field keeps an explicit zero, a plain field treats its zero as
// unset, null counts as unset.
func TestDefaultKeepsWhatIsSet(t *testing.T) {
	for _, tc := range []struct{ name, group, version, kind, in, want string }{
		{"replicas 0 kept", "apps", "v1", "ReplicaSet",
			`{"spec":{"replicas":0,"template":{"spec":{}}}}`,
			`{"spec":{"replicas":0,"template":{"spec":{"dnsPolicy":"ClusterFirst","restartPolicy":"Always","securityContext":{},"terminationGracePeriodSeconds":30,"schedulerName":"default-scheduler"}}}}`},
		{"null replicas defaulted", "apps", "v1", "ReplicaSet",
			`{"spec":{"replicas":null,"template":{"spec":{"dnsPolicy":"Default"}}}}`,
			`{"spec":{"replicas":1,"template":{"spec":{"dnsPolicy":"Default","restartPolicy":"Always","securityContext":{},"terminationGracePeriodSeconds":30,"schedulerName":"default-scheduler"}}}}`},
		{"probe zero period defaulted", "", "v1", "PodTemplate",
			`{"template":{"spec":{"containers":[{"name":"c","image":"x:1","livenessProbe":{"exec":{"command":["true"]},"periodSeconds":0}}]}}}`,
			`{"template":{"spec":{"containers":[{"name":"c","image":"x:1","livenessProbe":{"exec":{"command":["true"]},"periodSeconds":10,"timeoutSeconds":1,"successThreshold":1,"failureThreshold":3},"imagePullPolicy":"IfNotPresent","terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","securityContext":{},"terminationGracePeriodSeconds":30,"schedulerName":"default-scheduler"}}}`},
		{"wrong types left alone", "apps", "v1", "Deployment",
			`{"spec":{"strategy":"fast","template":[]}}`,
			`{"spec":{"strategy":"fast","template":[],"replicas":1,"revisionHistoryLimit":10,"progressDeadlineSeconds":600}}`},
		{"secret type kept", "", "v1", "Secret", `{"type":"kubernetes.io/tls"}`, `{"type":"kubernetes.io/tls"}`},
		{"unknown kind", "example.com", "v1", "Widget", `{"spec":{}}`, `{"spec":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := parse(t, tc.in)
			Default(tc.group, tc.version, tc.kind, nil, &obj)
			assert.JSONEq(t, tc.want, string(jsonv.Marshal(obj)))
		})
	}
}

// FuzzDefault runs the defaulters and Complete of several kinds over
// arbitrary documents: whatever the body, they neither panic nor loop.
func FuzzDefault(f *testing.F) {
	for _, s := range []string{
		`{"spec":{"template":{"spec":{"containers":[{"image":"a"}],"volumes":[{}]}}}}`,
		`{"spec":{"ports":[{"port":80}],"sessionAffinity":"ClientIP"}}`,
		`{"spec":{"containers":[{"resources":{"limits":{"cpu":"1"}}}],"hostNetwork":true}}`,
		`{"spec":null,"status":[]}`,
		`{"webhooks":[{"rules":[{}],"clientConfig":{"service":{}}}]}`,
	} {
		f.Add(s)
	}
	kinds := [][3]string{
		{"", "v1", "Pod"}, {"apps", "v1", "Deployment"}, {"apps", "v1", "StatefulSet"}, {"batch", "v1", "CronJob"},
		{"", "v1", "Service"}, {"", "v1", "LimitRange"}, {"autoscaling", "v2", "HorizontalPodAutoscaler"},
		{"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration"}, {"", "v1", "ReplicationController"},
	}
	defs := openapi.Builtin()
	f.Fuzz(func(t *testing.T, s string) {
		res, err := jsonv.Parse([]byte(s))
		if err != nil || res.Value.Kind != jsonv.Object {
			return
		}
		for _, k := range kinds {
			obj := res.Value.Clone()
			Default(k[0], k[1], k[2], nil, &obj)
			if def, _, ok := defs.ForKind(openapi.GVK{Group: k[0], Version: k[1], Kind: k[2]}); ok {
				Complete(defs, def, &obj)
			}
			jsonv.Marshal(obj)
		}
	})
}
