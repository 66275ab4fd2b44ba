package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// defaulter sets the defaults of one kind. m is the object's metadata (a
// few kinds default their labels); obj holds the object's other top-level
// members.
type defaulter func(m *meta.ObjectMeta, obj *jsonv.Value)

// defaulters maps "group/Kind" to its defaulter, for every version the
// fake server serves: the kinds' defaults do not differ between versions,
// except HorizontalPodAutoscaler's (see versionDefaulters).
var defaulters = map[string]defaulter{
	"/Pod":                   func(_ *meta.ObjectMeta, obj *jsonv.Value) { defaultPod(obj) },
	"/PodTemplate":           defaultPodTemplate,
	"/ReplicationController": defaultReplicationController,
	"/Service":               defaultService,
	"/Secret":                defaultSecret,
	"/PersistentVolume":      defaultPV,
	"/PersistentVolumeClaim": defaultPVC,
	"/Endpoints":             defaultEndpoints,
	"/Namespace":             defaultNamespace,
	"/Node":                  defaultNode,
	"/LimitRange":            defaultLimitRange,

	"apps/Deployment":  defaultDeployment,
	"apps/ReplicaSet":  defaultReplicaSet,
	"apps/DaemonSet":   defaultDaemonSet,
	"apps/StatefulSet": defaultStatefulSet,
	"batch/Job":        defaultJob,
	"batch/CronJob":    defaultCronJob,

	"networking.k8s.io/NetworkPolicy":                         defaultNetworkPolicy,
	"networking.k8s.io/IngressClass":                          defaultIngressClass,
	"rbac.authorization.k8s.io/RoleBinding":                   defaultBinding,
	"rbac.authorization.k8s.io/ClusterRoleBinding":            defaultBinding,
	"discovery.k8s.io/EndpointSlice":                          defaultEndpointSlice,
	"storage.k8s.io/StorageClass":                             defaultStorageClass,
	"storage.k8s.io/CSIDriver":                                defaultCSIDriver,
	"storage.k8s.io/VolumeAttachment":                         defaultVolumeAttachment,
	"scheduling.k8s.io/PriorityClass":                         defaultPriorityClass,
	"certificates.k8s.io/PodCertificateRequest":               defaultPodCertificateRequest,
	"apiregistration.k8s.io/APIService":                       defaultAPIService,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                 defaultFlowSchema,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": defaultPriorityLevel,

	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   webhookConfiguration(false),
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     webhookConfiguration(true),
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        defaultAdmissionPolicy,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          defaultAdmissionPolicy,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": defaultAdmissionPolicyBinding,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   defaultAdmissionPolicyBinding,

	"resource.k8s.io/ResourceClaim":         defaultResourceClaim,
	"resource.k8s.io/ResourceClaimTemplate": defaultResourceClaimTemplate,

	"authentication.k8s.io/TokenRequest": defaultTokenRequest,
}

// versionDefaulters holds the defaulters that depend on the version
// ("group/version/Kind").
var versionDefaulters = map[string]defaulter{
	"autoscaling/v1/HorizontalPodAutoscaler": defaultHPAv1,
	"autoscaling/v2/HorizontalPodAutoscaler": defaultHPAv2,
}

// Default applies the real server's defaulting for an object of kind in
// group at version, in place: obj is an object holding the object's
// top-level members other than kind, apiVersion and metadata, and m its
// metadata (Jobs and ReplicationControllers take their pod template's
// labels when they have none; m may be nil). A kind without defaults, or
// a member of the wrong JSON type, is left as it is. Default reports
// whether the kind has a defaulter.
func Default(group, version, kind string, m *meta.ObjectMeta, obj *jsonv.Value) bool {
	if obj == nil || obj.Kind != jsonv.Object {
		return false
	}
	d, ok := versionDefaulters[group+"/"+version+"/"+kind]
	if !ok {
		d, ok = defaulters[group+"/"+kind]
	}
	if !ok {
		return false
	}
	d(m, obj)
	return true
}
