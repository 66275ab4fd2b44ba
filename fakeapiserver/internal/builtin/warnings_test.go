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

// The update warnings are the real kube-apiserver v1.37.2's for the same
// updates (e2e/differential TestUpdateWarnings asks it again).
func TestUpdateWarnings(t *testing.T) {
	rbd := `"volumes":[{"name":"r","rbd":{"monitors":["m"],"image":"i"}}]`
	dep := parse(t, `{"spec":{"replicas":1,"template":{"spec":{`+rbd+`}}}}`)
	k := Kind{Group: "apps", Version: "v1", Kind: "Deployment"}
	assert.Empty(t, UpdateWarnings(k, &dep, &dep, false), "no generation change, no template warnings")
	assert.Equal(t, []string{"spec.template.spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+"}, UpdateWarnings(k, &dep, &dep, true))

	rc := parse(t, `{"spec":{"template":{"spec":{"volumes":[]}}}}`)
	oldRC := parse(t, `{"spec":{"template":{"spec":{`+rbd+`}}}}`)
	assert.Equal(t, []string{"spec.template.spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+"},
		UpdateWarnings(Kind{Version: "v1", Kind: "ReplicationController"}, &rc, &oldRC, true), "the stored template is the one looked at")

	ds := Kind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	changed := parse(t, `{"spec":{"minReadySeconds":3,"template":{"spec":{`+rbd+`}}}}`)
	assert.Empty(t, UpdateWarnings(ds, &changed, &dep, true), "a DaemonSet warns only when its template changes")
	tmpl := parse(t, `{"spec":{"template":{"metadata":{"labels":{"z":"1"}},"spec":{`+rbd+`}}}}`)
	assert.Len(t, UpdateWarnings(ds, &tmpl, &dep, true), 1)

	sts := parse(t, `{"spec":{"revisionHistoryLimit":-1}}`)
	assert.Equal(t, []string{"spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"},
		UpdateWarnings(Kind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, &sts, &sts, false))

	pod := parse(t, `{"spec":{`+rbd+`}}`)
	assert.Empty(t, UpdateWarnings(Kind{Version: "v1", Kind: "Pod"}, &pod, &pod, true), "a Pod never warns on update")

	svc := Kind{Version: "v1", Kind: "Service"}
	for body, want := range map[string][]string{
		`{"spec":{"externalIPs":["192.0.2.1"]}}`: {"spec.externalIPs is deprecated and may no longer be implemented in some clusters"},
		`{"spec":{"clusterIP":"None","externalIPs":["192.0.2.1"],"loadBalancerIP":"192.0.2.2","sessionAffinity":"ClientIP"}}`: {
			"spec.loadBalancerIP is ignored for headless services", "spec.externalIPs is ignored for headless services", "spec.SessionAffinity is ignored for headless services"},
		`{"spec":{"type":"ExternalName","externalName":"x","externalIPs":["192.0.2.1"]}}`: {`spec.externalIPs is ignored when spec.type is "ExternalName"`},
		`{"spec":{"externalName":"x","trafficDistribution":"PreferClose"}}`: {
			`spec.externalName is ignored when spec.type is not "ExternalName"`, `spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`},
	} {
		obj := parse(t, body)
		assert.Equal(t, want, UpdateWarnings(svc, &obj, &obj, false), body)
		assert.Equal(t, want, Warnings(svc, &obj), body)
	}
}

func TestEnvRedefinitionWarnings(t *testing.T) {
	pod := parse(t, `{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"},{"name":"A","value":"$(A)2"},{"name":"B"},{"name":"B","value":"$(B)"},{"name":"C"},{"name":"C","value":"$(C)","valueFrom":{}}]}]}}`)
	assert.Equal(t, []string{
		`spec.containers[0].env[3]: hides previous definition of "B", which may be dropped when using apply`,
		`spec.containers[0].env[5]: hides previous definition of "C", which may be dropped when using apply`,
	}, Warnings(Kind{Version: "v1", Kind: "Pod"}, &pod), "a value building on the previous one does not hide it")
}
