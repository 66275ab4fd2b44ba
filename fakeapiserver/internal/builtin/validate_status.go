package builtin

import (
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/meta"
)

// A write to a built-in object's /status subresource, as the real status
// strategies handle it: the body is decoded with defaults, the stored
// spec replaces the sent one, the strategy's PrepareForUpdate backfills
// what a client may leave out (a Pod's qosClass), and the strategy's
// ValidateUpdate checks the new status against the old object.

// statusRule checks a status write. obj is the object as the write
// would store it (the stored spec, the new status) and old the stored
// object; both hold the members other than metadata. m is the stored
// metadata.
type statusRule func(v *validator, m *meta.ObjectMeta, obj, old *jsonv.Value)

// statusRules maps "group/Kind" to the checks its status strategy makes.
// A kind without an entry takes any status.
var statusRules = map[string]statusRule{
	"/Namespace":             namespaceStatus,
	"/Node":                  nodeStatus,
	"/Pod":                   podStatusUpdate,
	"/Service":               serviceStatus,
	"/PersistentVolumeClaim": pvcStatus,
	"/ResourceQuota":         resourceQuotaStatus,
	"/ReplicationController": replicaCountsStatus(true),

	"apps/Deployment":                     deploymentStatus,
	"apps/ReplicaSet":                     replicaCountsStatus(false),
	"apps/StatefulSet":                    statefulSetStatus,
	"apps/DaemonSet":                      daemonSetStatus,
	"batch/Job":                           jobStatus,
	"autoscaling/HorizontalPodAutoscaler": hpaStatus,
	"policy/PodDisruptionBudget":          pdbStatus,

	"networking.k8s.io/Ingress":                     ingressStatus,
	"resource.k8s.io/ResourceClaim":                 resourceClaimStatus,
	"resource.k8s.io/DeviceTaintRule":               deviceTaintRuleStatus,
	"certificates.k8s.io/CertificateSigningRequest": csrStatus,
	"certificates.k8s.io/PodCertificateRequest":     podCertificateRequestStatus,
	"apiregistration.k8s.io/APIService":             apiServiceStatus,

	"flowcontrol.apiserver.k8s.io/FlowSchema":                 flowControlStatus,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": flowControlStatus,
	"storagemigration.k8s.io/StorageVersionMigration":         svmStatus,
}

// ValidateStatusUpdate checks a write to the /status of an object of kind
// in group as the real status strategy's ValidateUpdate does, returning
// the field errors for a 422 Invalid (nil when the write is allowed). obj
// and old are as PrepareStatusUpdate leaves them; they are only read.
func ValidateStatusUpdate(group, kind string, m *meta.ObjectMeta, obj, old *jsonv.Value) []FieldError {
	rule := statusRules[group+"/"+kind]
	if rule == nil || obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	if old == nil || old.Kind != jsonv.Object {
		old = &jsonv.Value{Kind: jsonv.Object}
	}
	v := &validator{}
	rule(v, orEmptyMeta(m), obj, old)
	return v.errs
}

// PrepareStatusUpdate does to a status write what the real status
// strategy's PrepareForUpdate does beyond keeping the stored spec: a Pod
// keeps its qosClass, resource claim statuses and observed generations
// when the write leaves them out, a PersistentVolume whose phase changes
// gets a new lastPhaseTransitionTime (now), a Node drops a status.config
// its stored object does not have, and a CertificateSigningRequest keeps its
// Approved and Denied conditions and gets its conditions' missing times
// (now, the time of the write), a ResourceClaim drops the status of
// the devices its allocation no longer holds, and a CSINode its
// storageHealth. obj is changed in place; old is only read.
func PrepareStatusUpdate(group, kind string, obj, old *jsonv.Value, now time.Time) {
	if obj == nil || old == nil {
		return
	}
	switch group + "/" + kind {
	case "/Pod":
		preparePodStatus(child(obj, "status"), sub(old, "status"))
	case "/Node":
		if status := present(obj, "status"); status != nil && empty(sub(old, "status"), "config") {
			status.Delete("config")
		}
	case "/PersistentVolume":
		preparePVStatus(child(obj, "status"), sub(old, "status"), now)
	case "certificates.k8s.io/CertificateSigningRequest":
		if status := present(obj, "status"); status != nil {
			prepareCSRStatus(status, sub(old, "status"), now)
		}
	case "resource.k8s.io/ResourceClaim":
		if status := present(obj, "status"); status != nil {
			dropDeallocatedDevices(status, sub(old, "status"))
		}
	case "storage.k8s.io/CSINode":
		// storageHealth belongs to the CSIVolumeHealth gate, off in 1.37:
		// it is dropped unless the stored status has it (it never does,
		// as a create drops it too).
		if status := present(obj, "status"); status != nil && empty(sub(old, "status"), "storageHealth") {
			status.Delete("storageHealth")
		}
	}
}

// Status does to a status write what the real server does between
// decoding its body and storing it: obj is the stored object with the
// written status (its members other than metadata), changed in place;
// old the stored object. The status is defaulted as decoding defaults it
// (a Node's allocatable from its capacity, a load balancer ingress's
// ipMode), prepared (PrepareStatusUpdate) and validated
// (ValidateStatusUpdate); the rest of obj is left as stored. It returns
// the defaulted status before preparing, with its unset timestamps as
// null, which the field manager records (nil for a kind without a
// status), and *Invalid when the write is refused. A Job's or
// ReplicationController's labels defaulted from its template go into m.
func (w Write) Status(k Kind, m *meta.ObjectMeta, obj, old *jsonv.Value) (*jsonv.Value, error) {
	decoded := obj.Clone()
	mc := *orEmptyMeta(m)
	w.Decoded(k, &mc, &decoded)
	// A status write is checked without the empty lists.
	Recorded(k, &decoded)
	if m != nil && len(m.Labels) == 0 && len(mc.Labels) > 0 {
		// The real status strategies keep the body's metadata, which
		// decoding defaulted: a Job or ReplicationController without
		// labels takes its template's.
		m.Labels = mc.Labels
	}
	var written *jsonv.Value
	if status := decoded.Get("status"); status != nil {
		obj.Set("status", status.Clone())
		recorded := decoded.Clone()
		defs := openapi.Builtin()
		if def, _, ok := defs.ForKind(openapi.GVK{Group: k.Group, Version: k.Version, Kind: k.Kind}); ok {
			CompleteStructsAndTimes(defs, def, &recorded)
		}
		written = recorded.Get("status")
	}
	PrepareStatusUpdate(k.Group, k.Kind, obj, old, w.Env.Now)
	if errs := ValidateStatusUpdate(k.Group, k.Kind, m, obj, old); len(errs) > 0 {
		return nil, &Invalid{Errors: errs}
	}
	done := obj.Clone()
	complete(k, &done)
	if s := done.Get("status"); s != nil {
		obj.Set("status", s.Clone())
	}
	return written, nil
}

// notAbove reports status.key above status.limitKey with the real
// message (which names the limit its own way per kind).
func (v *validator) notAbove(status *jsonv.Value, key, limitKey, detail string) {
	n, _ := integer(status, key)
	limit, _ := integer(status, limitKey)
	if n > limit {
		v.invalidRaw("status."+key, strconv.FormatInt(n, 10), detail)
	}
}

// nonNegativeAll reports each named status count below 0, in order.
func (v *validator) nonNegativeAll(status *jsonv.Value, keys ...string) {
	for _, k := range keys {
		v.nonNegative(status, k, "status."+k)
	}
}

// notDecremented reports a status.collisionCount lower than the stored
// one, or removed (shown as 0).
func (v *validator) notDecremented(status, oldStatus *jsonv.Value, key string) {
	was, had := integer(oldStatus, key)
	if !had {
		return
	}
	now, has := integer(status, key)
	if !has || now < was {
		v.invalidRaw("status."+key, strconv.FormatInt(now, 10), "cannot be decremented")
	}
}

// preparePVStatus keeps a volume's lastPhaseTransitionTime while its
// phase stays and sets it to now when the phase changes and the write
// leaves the time out or unchanged.
func preparePVStatus(status, old *jsonv.Value, now time.Time) {
	if status == nil {
		return
	}
	phaseSame := str(status, "phase") == str(old, "phase")
	switch {
	case phaseSame && unset(status, "lastPhaseTransitionTime"):
		if !unset(old, "lastPhaseTransitionTime") {
			status.Set("lastPhaseTransitionTime", old.Get("lastPhaseTransitionTime").Clone())
		}
	case !phaseSame && (unset(status, "lastPhaseTransitionTime") || sameTime(status, old, "lastPhaseTransitionTime")):
		status.Set("lastPhaseTransitionTime", jsonv.NewString(now.UTC().Format(time.RFC3339)))
	}
}
