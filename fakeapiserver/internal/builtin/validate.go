package builtin

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// validator collects field errors in the order the real validators report
// them.
type validator struct {
	errs []FieldError
}

// kindValidation checks one kind's object (its members other than
// metadata) on create; m is its metadata.
type kindValidation func(v *validator, m *meta.ObjectMeta, obj *jsonv.Value)

// validations maps "group/Kind" to the checks of that kind.
var validations = map[string]kindValidation{
	"/Pod": func(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
		opts := podOptions{pod: true, annotationsPath: "metadata.annotations"}
		if m != nil {
			opts.annotations = m.Annotations
		}
		v.podSpec("spec", sub(obj, "spec"), opts)
	},
	"/PodTemplate":           validatePodTemplate,
	"/ReplicationController": validateReplicationController,
	"/Service":               validateService,
	"/ConfigMap":             validateConfigMap,
	"/Secret":                validateSecret,
	"/PersistentVolumeClaim": validatePVC,
	"/PersistentVolume":      validatePV,
	"/ResourceQuota":         validateResourceQuota,
	"/LimitRange":            validateLimitRange,
	"/Event":                 validateEvent,

	"apps/Deployment":  validateDeployment,
	"apps/ReplicaSet":  validateReplicaSet,
	"apps/DaemonSet":   validateDaemonSet,
	"apps/StatefulSet": validateStatefulSet,
	"batch/Job":        validateJob,
	"batch/CronJob":    validateCronJob,

	"rbac.authorization.k8s.io/Role":                              validateRole,
	"rbac.authorization.k8s.io/ClusterRole":                       validateClusterRole,
	"rbac.authorization.k8s.io/RoleBinding":                       validateRoleBinding,
	"rbac.authorization.k8s.io/ClusterRoleBinding":                validateRoleBinding,
	"coordination.k8s.io/Lease":                                   validateLease,
	"scheduling.k8s.io/PriorityClass":                             validatePriorityClass,
	"autoscaling/HorizontalPodAutoscaler":                         validateHPA,
	"policy/PodDisruptionBudget":                                  validatePDB,
	"networking.k8s.io/Ingress":                                   validateIngress,
	"networking.k8s.io/NetworkPolicy":                             validateNetworkPolicy,
	"storage.k8s.io/StorageClass":                                 validateStorageClass,
	"discovery.k8s.io/EndpointSlice":                              validateEndpointSlice,
	"storage.k8s.io/CSIDriver":                                    validateCSIDriver,
	"storage.k8s.io/CSINode":                                      validateCSINode,
	"storage.k8s.io/VolumeAttachment":                             validateVolumeAttachment,
	"storage.k8s.io/CSIStorageCapacity":                           validateCSIStorageCapacity,
	"certificates.k8s.io/CertificateSigningRequest":               validateCSR,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration": validateValidatingWebhooks,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":   validateMutatingWebhooks,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                     validateFlowSchema,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":     validatePriorityLevel,
	"resource.k8s.io/DeviceClass":                                 validateDeviceClass,
	"resource.k8s.io/ResourceClaim":                               validateResourceClaim,
	"resource.k8s.io/ResourceClaimTemplate":                       validateResourceClaimTemplate,
	"resource.k8s.io/ResourceSlice":                               validateResourceSlice,
	"resource.k8s.io/DeviceTaintRule":                             validateDeviceTaintRule,
	"networking.k8s.io/ServiceCIDR":                               validateServiceCIDR,
	"networking.k8s.io/IPAddress":                                 validateIPAddress,
	"networking.k8s.io/IngressClass":                              validateIngressClass,
	"node.k8s.io/RuntimeClass":                                    validateRuntimeClass,
	"/Namespace":                                                  validateNamespace,
	"/Node":                                                       validateNode,
	"/Endpoints":                                                  validateEndpoints,
	"apps/ControllerRevision":                                     validateControllerRevision,
	"storage.k8s.io/VolumeAttributesClass":                        validateVolumeAttributesClass,
	"certificates.k8s.io/ClusterTrustBundle":                      validateClusterTrustBundle,
	"certificates.k8s.io/PodCertificateRequest":                   validatePodCertificateRequest,
	"apiregistration.k8s.io/APIService":                           validateAPIService,
	"storagemigration.k8s.io/StorageVersionMigration":             validateStorageVersionMigration,
}

// createOnly maps "group/Kind" to the checks a create makes and an
// update does not.
var createOnly = map[string]kindValidation{
	"/Pod": podCreate,
}

// Validate checks a defaulted object of kind in group as the real
// server's validators do on create, returning its field errors (nil when
// valid) for a 422 Invalid. Metadata rules common to every kind are the
// server's; Validate adds the kind's own (a CronJob's name length, a
// PriorityClass's reserved prefix). obj holds the members other than
// kind, apiVersion and metadata; it is only read.
func Validate(group, kind string, m *meta.ObjectMeta, obj *jsonv.Value) []FieldError {
	check, ok := validations[group+"/"+kind]
	if !ok || obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	if m == nil {
		m = &meta.ObjectMeta{}
	}
	v := &validator{}
	check(v, m, obj)
	if c := createOnly[group+"/"+kind]; c != nil {
		c(v, m, obj)
	}
	return v.errs
}

// validateKind runs the checks of kind that a create and an update
// share.
func validateKind(group, kind string, m *meta.ObjectMeta, obj *jsonv.Value) []FieldError {
	check, ok := validations[group+"/"+kind]
	if !ok || obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	v := &validator{}
	check(v, m, obj)
	return v.errs
}

// sub returns the object under key for reading: an empty object when it
// is absent, null or not an object, so the checks see a Go struct's zero
// value without changing the document.
func sub(v *jsonv.Value, key string) *jsonv.Value {
	if c := present(v, key); c != nil {
		return c
	}
	return &jsonv.Value{Kind: jsonv.Object}
}

func (v *validator) add(e FieldError) { v.errs = append(v.errs, e) }

func (v *validator) required(field, detail string) {
	v.add(FieldError{Type: meta.CauseFieldValueRequired, Field: field, Detail: detail})
}

func (v *validator) forbidden(field, detail string) {
	v.add(FieldError{Type: meta.CauseFieldValueForbidden, Field: field, Detail: detail})
}

func (v *validator) invalid(field, value, detail string) { v.add(invalidValue(field, value, detail)) }

// invalidRaw reports a value shown as it is (a number, a JSON map).
func (v *validator) invalidRaw(field, shown, detail string) {
	v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: field, Value: shown, Detail: detail})
}

func (v *validator) notSupported(field, value string, supported ...string) {
	v.notSupportedRaw(field, strconv.Quote(value), supported...)
}

func (v *validator) notSupportedRaw(field, shown string, supported ...string) {
	q := make([]string, len(supported))
	for i, s := range supported {
		q[i] = strconv.Quote(s)
	}
	v.add(FieldError{Type: meta.CauseFieldValueNotSupported, Field: field, Value: shown, Detail: "supported values: " + strings.Join(q, ", ")})
}

// tooLong reports a value over limit bytes (the real server does not
// show it).
func (v *validator) tooLong(field string, limit int) {
	detail := "may not be more than " + strconv.Itoa(limit) + " bytes"
	if limit == 1 {
		detail = "may not be more than 1 byte"
	}
	v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: field, Detail: detail})
}

func (v *validator) duplicate(field, value string) {
	v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: field, Value: strconv.Quote(value)})
}

func (v *validator) notFound(field, value string) {
	v.add(FieldError{Type: meta.CauseFieldValueNotFound, Field: field, Value: strconv.Quote(value)})
}

// problems reports each problem of a string value as an Invalid error.
func (v *validator) problems(field, value string, problems []string) {
	for _, p := range problems {
		v.invalid(field, value, p)
	}
}

// enum reports a string member that is set but not one of allowed.
func (v *validator) enum(obj *jsonv.Value, key, field string, allowed ...string) {
	s := str(obj, key)
	if s == "" {
		return
	}
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	v.notSupported(field, s, allowed...)
}

// integer returns a number member's value and whether it is set.
func integer(obj *jsonv.Value, key string) (int64, bool) {
	n := obj.Get(key)
	if n == nil || n.Kind != jsonv.Number {
		return 0, false
	}
	i, err := strconv.ParseInt(n.Str, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(n.Str, 64)
		if ferr != nil {
			return 0, false
		}
		i = int64(f)
	}
	return i, true
}

// nonNegative reports a set number member below 0.
func (v *validator) nonNegative(obj *jsonv.Value, key, field string) {
	if n, ok := integer(obj, key); ok && n < 0 {
		v.invalidRaw(field, strconv.FormatInt(n, 10), "must be greater than or equal to 0")
	}
}

// portRange reports a port outside 1-65535.
func (v *validator) portRange(field string, n int64) {
	if n < 1 || n > 65535 {
		v.invalidRaw(field, strconv.FormatInt(n, 10), "must be between 1 and 65535, inclusive")
	}
}

// index names the i-th item of a list field.
func index(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

// key names a map entry of a field.
func key(field, k string) string { return field + "[" + k + "]" }

// items returns the objects of the array under key with their indexes.
func items(obj *jsonv.Value, k string) []*jsonv.Value {
	arr := obj.Get(k)
	if arr == nil || arr.Kind != jsonv.Array {
		return nil
	}
	out := make([]*jsonv.Value, len(arr.Arr))
	for i := range arr.Arr {
		out[i] = &arr.Arr[i]
	}
	return out
}

// shownMap renders a string map as the real server shows a map value in a
// message: JSON with sorted keys.
func shownMap(m map[string]string) string {
	obj := jsonv.NewObject()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		obj.Obj = append(obj.Obj, jsonv.Member{Key: k, Value: jsonv.NewString(m[k])})
	}
	return string(jsonv.Marshal(obj))
}

// labels checks a label map's keys and values.
func (v *validator) labels(field string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v.problems(field, k, qualifiedNameProblems(k))
		v.problems(field, m[k], labelValueProblems(m[k]))
	}
}
