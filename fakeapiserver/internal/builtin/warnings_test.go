package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The warnings are the real kube-apiserver v1.37.2's for the same bodies.
func TestWarnings(t *testing.T) {
	pod := parse(t, `{"spec":{"terminationGracePeriodSeconds":-5,"volumes":[{"name":"a","emptyDir":{}},{"name":"r","rbd":{"monitors":["m"],"image":"i"}}],"containers":[{"name":"c","env":[{"name":"A"},{"name":"A"}]}]}}`)
	assert.Equal(t, []string{
		"spec.volumes[1].rbd: deprecated in v1.28, non-functional in v1.31+",
		`spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply`,
	}, Warnings(Kind{Version: "v1", Kind: "Pod"}, &pod), "a Pod's negative grace period is defaulted before the warnings")
	dep := parse(t, `{"spec":{"template":{"spec":{"terminationGracePeriodSeconds":-1,"volumes":[{"name":"g","glusterfs":{}}]}}}}`)
	assert.Equal(t, []string{"spec.template.spec.volumes[0].glusterfs: deprecated in v1.25, non-functional in v1.26+",
		"spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"},
		Warnings(Kind{Group: "apps", Version: "v1", Kind: "Deployment"}, &dep))
	svc := parse(t, `{"spec":{"externalIPs":["192.0.2.1"]}}`)
	assert.Equal(t, []string{"spec.externalIPs is deprecated and may no longer be implemented in some clusters"},
		Warnings(Kind{Version: "v1", Kind: "Service"}, &svc))
	assert.Empty(t, Warnings(Kind{Version: "v1", Kind: "ConfigMap"}, &svc))
}
