package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// TestCompleteDropsOmittedZeros checks that the zero value (or null) of
// a non-pointer scalar with omitempty is dropped at every depth, in both
// forms of the completion, while a pointer scalar keeps its zero and a
// field without omitempty (or a struct with it, such as a port's
// targetPort) keeps or gets its own.
func TestCompleteDropsOmittedZeros(t *testing.T) {
	defs := openapi.Builtin()
	cases := []struct {
		name, definition, in, want string
	}{{
		name:       "service spec and ports",
		definition: "io.k8s.api.core.v1.Service",
		in:         `{"spec":{"clusterIP":"","type":"","healthCheckNodePort":0,"publishNotReadyAddresses":false,"loadBalancerIP":null,"ports":[{"name":"","port":80,"nodePort":0}]}}`,
		want:       `{"spec":{"ports":[{"port":80,"targetPort":0}]},"status":{"loadBalancer":{}}}`,
	}, {
		name:       "pod template: pointers keep their zero",
		definition: "io.k8s.api.apps.v1.Deployment",
		in: `{"spec":{"replicas":0,"paused":false,"minReadySeconds":0,"template":{"metadata":{"name":""},
			"spec":{"hostname":"","hostNetwork":false,"terminationGracePeriodSeconds":0,"containers":[{"name":"c","image":"","tty":false,"ports":[{"name":"","containerPort":80,"hostPort":0}]}]}}}}`,
		want: `{"spec":{"replicas":0,"selector":null,"template":{"metadata":{},
			"spec":{"terminationGracePeriodSeconds":0,"containers":[{"name":"c","ports":[{"containerPort":80}],"resources":{}}]}},"strategy":{}},"status":{}}`,
	}, {
		name:       "a value that is not the zero stays",
		definition: "io.k8s.api.core.v1.Service",
		in:         `{"spec":{"clusterIP":"None","ports":[{"name":"http","port":80,"targetPort":8080,"nodePort":30080}]}}`,
		want:       `{"spec":{"clusterIP":"None","ports":[{"name":"http","port":80,"targetPort":8080,"nodePort":30080}]},"status":{"loadBalancer":{}}}`,
	}}
	for _, tc := range cases {
		obj := parse(t, tc.in)
		Complete(defs, tc.definition, &obj)
		assert.JSONEq(t, tc.want, string(jsonv.Marshal(obj)), "Complete: %s", tc.name)
		obj = parse(t, tc.in)
		CompleteStructs(defs, tc.definition, &obj)
		assert.NotContains(t, string(jsonv.Marshal(obj)), `""`, "CompleteStructs: %s", tc.name)
	}
}
