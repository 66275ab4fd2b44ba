package builtin

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of Services, ConfigMaps, Secrets, claims and volumes, quotas,
// limit ranges and Events.

// maxDataBytes is the size limit of a ConfigMap's or Secret's data.
const maxDataBytes = 1 << 20

func validateService(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	typ := str(spec, "type")
	ports := items(spec, "ports")
	headless := str(spec, "clusterIP") == "None"
	if len(ports) == 0 && typ != "ExternalName" && !headless {
		v.required("spec.ports", "")
	}
	v.serviceTypeIPs(spec)
	if typ == "ExternalName" {
		// The name may end in a dot, a fully qualified one.
		if en := strings.TrimSuffix(str(spec, "externalName"), "."); en == "" {
			v.required("spec.externalName", "")
		} else {
			v.problems("spec.externalName", en, validation.SubdomainProblems(en))
		}
	}
	names := map[string]bool{}
	for i, p := range ports {
		path := index("spec.ports", i)
		name := str(p, "name")
		switch {
		case name == "" && len(ports) > 1:
			v.required(path+".name", "")
		case name != "":
			if probs := validation.LabelProblems(name); len(probs) > 0 {
				v.problems(path+".name", name, probs)
			} else if names[name] {
				v.duplicate(path+".name", name)
			}
			names[name] = true
		}
		port, _ := integer(p, "port")
		v.portRange(path+".port", port)
		v.protocol(path+".protocol", str(p, "protocol"))
		v.handlerPort(path+".targetPort", p.Get("targetPort"))
		v.appProtocol(path+".appProtocol", p)
		if np, _ := integer(p, "nodePort"); np != 0 && (typ == "ClusterIP" || typ == "ExternalName") {
			v.forbidden(path+".nodePort", "may not be used when `type` is '"+typ+"'")
		}
	}
	v.labels("spec.selector", stringMap(spec, "selector"))
	switch sa := str(spec, "sessionAffinity"); sa {
	case "ClientIP", "None":
	case "":
		v.required("spec.sessionAffinity", "")
	default:
		v.notSupported("spec.sessionAffinity", sa, "ClientIP", "None")
	}
	v.serviceIPs(spec, nil)
	switch typ {
	case "ClusterIP", "ExternalName", "LoadBalancer", "NodePort":
	case "":
		v.required("spec.type", "")
	default:
		v.notSupported("spec.type", typ, "ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
	}
}

// dataKeys checks the keys of the map under k and returns the decoded
// size of its values.
func (v *validator) dataKeys(obj *jsonv.Value, k, field string, decode bool) int {
	size := 0
	m := present(obj, k)
	if m == nil {
		return 0
	}
	for _, mem := range m.Obj {
		v.problems(key(field, mem.Key), mem.Key, configKeyProblems(mem.Key))
		if decode {
			b, _ := base64.StdEncoding.DecodeString(mem.Value.Str)
			size += len(b)
		} else {
			size += len(mem.Value.Str)
		}
	}
	return size
}

func validateConfigMap(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	size := v.dataKeys(obj, "data", "data", false)
	if bd := present(obj, "binaryData"); bd != nil {
		data := present(obj, "data")
		for _, mem := range bd.Obj {
			v.problems(key("binaryData", mem.Key), mem.Key, configKeyProblems(mem.Key))
			if data != nil && data.Get(mem.Key) != nil {
				v.invalid(key("data", mem.Key), mem.Key, "duplicate of key present in binaryData")
			}
			b, _ := base64.StdEncoding.DecodeString(mem.Value.Str)
			size += len(b)
		}
	}
	if size > maxDataBytes {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: "[]", Detail: "may not be more than " + strconv.Itoa(maxDataBytes) + " bytes"})
	}
}

// secretRequiredKeys lists the data keys each secret type requires.
var secretRequiredKeys = map[string][]string{
	"kubernetes.io/tls":              {"tls.crt", "tls.key"},
	"kubernetes.io/dockerconfigjson": {".dockerconfigjson"},
	"kubernetes.io/dockercfg":        {".dockercfg"},
	"kubernetes.io/ssh-auth":         {"ssh-privatekey"},
}

func validateSecret(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	size := v.dataKeys(obj, "data", "data", true)
	data := present(obj, "data")
	has := func(k string) bool { return data != nil && data.Get(k) != nil }
	typ := str(obj, "type")
	for _, k := range secretRequiredKeys[typ] {
		if !has(k) {
			v.required(key("data", k), "")
		}
	}
	switch typ {
	case "kubernetes.io/service-account-token":
		if m.Annotations["kubernetes.io/service-account.name"] == "" {
			v.required("metadata.annotations[kubernetes.io/service-account.name]", "")
		}
	case "kubernetes.io/basic-auth":
		if !has("username") && !has("password") {
			v.required(key("data", "username"), "")
			v.required(key("data", "password"), "")
		}
	}
	if size > maxDataBytes {
		v.add(FieldError{Type: apistatus.CauseFieldValueTooLong, Field: "data", Detail: "may not be more than " + strconv.Itoa(maxDataBytes) + " bytes"})
	}
}

// accessModes checks a claim's or volume's access modes.
func (v *validator) accessModes(field string, spec *jsonv.Value, requiredDetail string) {
	modes := spec.Get("accessModes")
	if modes == nil || modes.Kind != jsonv.Array || len(modes.Arr) == 0 {
		v.required(field, requiredDetail)
		return
	}
	for _, mode := range modes.Arr {
		switch mode.Str {
		case "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod":
		default:
			v.notSupported(field, mode.Str, "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
		}
	}
}

func validatePVC(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.pvcSpec("spec", spec)
}

// pvcSpec checks a claim's spec (also a StatefulSet's claim templates').
func (v *validator) pvcSpec(path string, spec *jsonv.Value) {
	v.accessModes(path+".accessModes", spec, "at least 1 access mode is required")
	storage := (*jsonv.Value)(nil)
	if res := present(spec, "resources"); res != nil {
		if reqs := present(res, "requests"); reqs != nil {
			storage = reqs.Get("storage")
		}
	}
	if storage == nil {
		v.required(path+".resources[storage]", "")
	} else if q, ok := quantityValue(storage); ok && q.Sign() <= 0 {
		v.invalid(path+".resources[storage]", storage.Str, "must be greater than zero")
	}
	if vm := str(spec, "volumeMode"); vm != "" && vm != "Block" && vm != "Filesystem" {
		v.notSupported(path+".volumeMode", vm, "Block", "Filesystem")
	}
}

// pvSources are the volume sources a PersistentVolume may use.
var pvSources = []string{
	"gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi",
	"cinder", "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte",
	"azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi",
}

func validatePV(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.accessModes("spec.accessModes", spec, "")
	capacity := present(spec, "capacity")
	if capacity == nil || len(capacity.Obj) == 0 {
		v.required("spec.capacity", "")
		v.notSupportedRaw("spec.capacity", "null", "storage")
	} else if capacity.Get("storage") == nil || len(capacity.Obj) > 1 {
		keys := []string{}
		for _, m := range capacity.Obj {
			keys = append(keys, m.Key)
		}
		v.notSupportedRaw("spec.capacity", string(jsonv.Marshal(stringArray(keys...))), "storage")
	}
	switch rp := str(spec, "persistentVolumeReclaimPolicy"); rp {
	case "", "Delete", "Recycle", "Retain":
	default:
		v.notSupported("spec.persistentVolumeReclaimPolicy", rp, "Delete", "Recycle", "Retain")
	}
	n := 0
	for _, s := range pvSources {
		if !unset(spec, s) {
			n++
		}
	}
	if n == 0 {
		v.required("spec", "must specify a volume type")
	}
}

func validateResourceQuota(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	for _, k := range []string{"hard"} {
		if m := present(spec, k); m != nil {
			for _, mem := range m.Obj {
				if q, ok := quantityValue(&mem.Value); ok && q.Sign() < 0 {
					v.invalid(key("spec."+k, mem.Key), mem.Value.Str, "must be greater than or equal to 0")
				}
			}
		}
	}
}

func validateLimitRange(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	for i, item := range items(spec, "limits") {
		switch t := str(item, "type"); t {
		case "Pod", "Container", "PersistentVolumeClaim":
		default:
			if len(qualifiedNameProblems(t)) > 0 || !containsSlash(t) {
				v.invalid(index("spec.limits", i)+".type", t, "must be a standard limit type or fully qualified")
			}
		}
	}
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return true
		}
	}
	return false
}
