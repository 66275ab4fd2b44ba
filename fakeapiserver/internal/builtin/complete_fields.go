package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// neverOmitted lists the fields the Go types always encode although the
// OpenAPI schema does not list them as required (optional fields without
// omitempty), with the encoding of their zero value. Read from the
// k8s.io/api types: a struct value encodes as {}, a nil pointer, slice or
// map and a zero time as null.
var neverOmitted = map[string][]jsonv.Member{
	"io.k8s.api.apps.v1.ControllerRevision":                       {{Key: "revision", Value: number(0)}},
	"io.k8s.api.apps.v1.StatefulSetOrdinals":                      {{Key: "start", Value: number(0)}},
	"io.k8s.api.apps.v1.StatefulSetSpec":                          {{Key: "serviceName", Value: jsonv.NewString("")}},
	"io.k8s.api.apps.v1.StatefulSetStatus":                        {{Key: "availableReplicas", Value: number(0)}},
	"io.k8s.api.authentication.v1.TokenRequestSpec":               {{Key: "audiences"}, {Key: "expirationSeconds"}, {Key: "boundObjectRef"}},
	"io.k8s.api.authentication.v1.TokenRequestStatus":             {{Key: "token", Value: jsonv.NewString("")}, {Key: "expirationTimestamp"}},
	"io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus":     {{Key: "currentMetrics"}},
	"io.k8s.api.batch.v1.PodFailurePolicyOnPodConditionsPattern":  {{Key: "status", Value: jsonv.NewString("")}},
	"io.k8s.api.core.v1.AzureFilePersistentVolumeSource":          {{Key: "secretNamespace"}},
	"io.k8s.api.core.v1.ContainerImage":                           {{Key: "names"}},
	"io.k8s.api.core.v1.Event":                                    {{Key: "reportingComponent", Value: jsonv.NewString("")}, {Key: "reportingInstance", Value: jsonv.NewString("")}},
	"io.k8s.api.core.v1.GRPCAction":                               {{Key: "service"}},
	"io.k8s.api.core.v1.NodeRuntimeHandler":                       {{Key: "name", Value: jsonv.NewString("")}},
	"io.k8s.api.core.v1.ProjectedVolumeSource":                    {{Key: "sources"}},
	"io.k8s.api.core.v1.TypedLocalObjectReference":                {{Key: "apiGroup"}},
	"io.k8s.api.core.v1.TypedObjectReference":                     {{Key: "apiGroup"}},
	"io.k8s.api.discovery.v1.EndpointSlice":                       {{Key: "endpoints"}},
	"io.k8s.api.flowcontrol.v1.FlowSchemaSpec":                    {{Key: "matchingPrecedence", Value: number(0)}},
	"io.k8s.api.flowcontrol.v1.QueuingConfiguration":              {{Key: "queues", Value: number(0)}, {Key: "handSize", Value: number(0)}, {Key: "queueLengthLimit", Value: number(0)}},
	"io.k8s.api.flowcontrol.v1.ResourcePolicyRule":                {{Key: "namespaces"}},
	"io.k8s.api.networking.v1.IngressClassParametersReference":    {{Key: "scope"}},
	"io.k8s.api.networking.v1.NetworkPolicySpec":                  {{Key: "podSelector", Value: jsonv.NewObject()}},
	"io.k8s.api.policy.v1.PodDisruptionBudgetStatus":              {{Key: "disruptionsAllowed", Value: number(0)}, {Key: "currentHealthy", Value: number(0)}, {Key: "desiredHealthy", Value: number(0)}, {Key: "expectedPods", Value: number(0)}},
	"io.k8s.api.rbac.v1.ClusterRole":                              {{Key: "rules"}},
	"io.k8s.api.rbac.v1.Role":                                     {{Key: "rules"}},
	"io.k8s.api.rbac.v1.RoleRef":                                  {{Key: "apiGroup", Value: jsonv.NewString("")}},
	"io.k8s.api.resource.v1.AllocatedDeviceStatus":                {{Key: "conditions"}},
	"io.k8s.api.resource.v1.CapacityRequestPolicy":                {{Key: "default"}},
	"io.k8s.api.resource.v1.DeviceClaim":                          {{Key: "requests"}},
	"io.k8s.api.scheduling.v1.PriorityClass":                      {{Key: "value", Value: number(0)}},
	"io.k8s.api.storage.v1.CSINodeDriver":                         {{Key: "topologyKeys"}},
	"io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration": {{Key: "nominalConcurrencyShares"}},
	"io.k8s.api.resource.v1.ResourceClaimSpec":                    {{Key: "devices", Value: jsonv.NewObject()}},
}

// zeroTimes lists the timestamp fields whose Go type is a metav1.Time or
// MicroTime value: omitempty does not omit a struct, so a zero time is
// always encoded, as null.
var zeroTimes = map[string][]string{
	"io.k8s.api.apps.v1.StatefulSetCondition":                       {"lastTransitionTime"},
	"io.k8s.api.apps.v1.DeploymentCondition":                        {"lastUpdateTime", "lastTransitionTime"},
	"io.k8s.api.apps.v1.DaemonSetCondition":                         {"lastTransitionTime"},
	"io.k8s.api.apps.v1.ReplicaSetCondition":                        {"lastTransitionTime"},
	"io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerCondition":    {"lastTransitionTime"},
	"io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition":    {"lastTransitionTime"},
	"io.k8s.api.batch.v1.JobCondition":                              {"lastProbeTime", "lastTransitionTime"},
	"io.k8s.api.certificates.v1.CertificateSigningRequestCondition": {"lastUpdateTime", "lastTransitionTime"},
	"io.k8s.api.core.v1.PersistentVolumeClaimCondition":             {"lastProbeTime", "lastTransitionTime"},
	"io.k8s.api.core.v1.VolumeHealthStatus":                         {"lastTransitionTime"},
	"io.k8s.api.core.v1.PodVolumeHealth":                            {"lastTransitionTime"},
	"io.k8s.api.core.v1.ContainerStateRunning":                      {"startedAt"},
	"io.k8s.api.core.v1.ContainerStateTerminated":                   {"startedAt", "finishedAt"},
	"io.k8s.api.core.v1.PodCondition":                               {"lastProbeTime", "lastTransitionTime"},
	"io.k8s.api.core.v1.ReplicationControllerCondition":             {"lastTransitionTime"},
	"io.k8s.api.core.v1.PreferAvoidPodsEntry":                       {"evictionTime"},
	"io.k8s.api.core.v1.NodeCondition":                              {"lastHeartbeatTime", "lastTransitionTime"},
	"io.k8s.api.core.v1.NamespaceCondition":                         {"lastTransitionTime"},
	"io.k8s.api.core.v1.Event":                                      {"firstTimestamp", "lastTimestamp", "eventTime"},
	"io.k8s.api.core.v1.EventSeries":                                {"lastObservedTime"},
	"io.k8s.api.events.v1.Event":                                    {"deprecatedFirstTimestamp", "deprecatedLastTimestamp"},
	"io.k8s.api.flowcontrol.v1.FlowSchemaCondition":                 {"lastTransitionTime"},
	"io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationCondition": {"lastTransitionTime"},
	"io.k8s.api.storage.v1.VolumeError":                             {"time"},
	"io.k8s.api.storage.v1.StorageHealthCondition":                  {"lastTransitionTime"},
}

// neverOmittedFields returns the zero members a definition always
// encodes beyond its required fields.
func neverOmittedFields(name string) ([]jsonv.Member, []string) {
	return neverOmitted[name], zeroTimes[name]
}

// zeroField is a member of a definition whose zero value the Go encoding
// omits (omittedZeros), with the JSON kind of its values.
type zeroField struct {
	key  string
	kind jsonv.Kind
}

// omittedZero reports whether v, the value of member key of definition
// name, is one the Go types do not encode: the zero value of a
// non-pointer scalar field with omitempty, or null, which decodes to it.
func omittedZero(name, key string, v jsonv.Value) bool {
	for _, f := range omittedZeros[name] {
		if f.key != key {
			continue
		}
		switch v.Kind {
		case jsonv.Null:
			return true
		case f.kind:
			return empty(&jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{{Key: key, Value: v}}}, key)
		}
		return false
	}
	return false
}
