package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of the kinds about versions of other objects and of the
// API: ControllerRevisions, APIServices and StorageVersionMigrations.

// validateControllerRevision checks a ControllerRevision: a revision not
// below 0 and data that is a JSON object.
func validateControllerRevision(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.nonNegative(obj, "revision", "revision")
	switch d := obj.Get("data"); {
	case d == nil || d.Kind == jsonv.Null:
		v.required("data", "data is mandatory")
	case d.Kind != jsonv.Object:
		v.required("data", "data must be a valid JSON object")
	}
}

// controllerRevisionUpdate forbids changing a revision's data.
func controllerRevisionUpdate(v *validator, obj, old *jsonv.Value) {
	if same(obj, old, "data") {
		return
	}
	shown := "null"
	if d := obj.Get("data"); d != nil {
		shown = string(jsonv.Marshal(*d))
	}
	v.invalidRaw("data", shown, "field is immutable")
}

// The ranges of an APIService's priorities.
const (
	maxGroupPriorityMinimum = 20000
	maxVersionPriority      = 1000
)

// validateAPIService checks an APIService: named version.group, its
// group a DNS subdomain (empty only for v1), its version a DNS-1035
// label, its priorities in range, and either a service to proxy to or
// none of the TLS settings that need one.
func validateAPIService(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	group, version := str(spec, "group"), str(spec, "version")
	if want := version + "." + group; m.Name != "" && len(validation.PathSegmentProblems(m.Name)) == 0 && m.Name != want {
		v.invalid("metadata.name", m.Name, "must be `spec.version+\".\"+spec.group`: "+strconv.Quote(want))
	}
	if group == "" && version != "v1" {
		v.required("spec.group", "only v1 may have an empty group and it better be legacy kube")
	}
	if group != "" {
		v.problems("spec.group", group, validation.SubdomainProblems(group))
	}
	v.problems("spec.version", version, validation.DNS1035LabelProblems(version))
	if n, _ := integer(spec, "groupPriorityMinimum"); n <= 0 || n > maxGroupPriorityMinimum {
		v.invalidRaw("spec.groupPriorityMinimum", strconv.FormatInt(n, 10), "must be positive and less than 20000")
	}
	if n, _ := integer(spec, "versionPriority"); n <= 0 || n > maxVersionPriority {
		v.invalidRaw("spec.versionPriority", strconv.FormatInt(n, 10), "must be positive and less than 1000")
	}
	caBundle := len(decodedBytes(str(spec, "caBundle")))
	insecure := isTrue(spec, "insecureSkipTLSVerify")
	svc := present(spec, "service")
	if svc == nil {
		if caBundle != 0 {
			v.invalid("spec.caBundle", strconv.Itoa(caBundle)+" bytes", "local APIServices may not have a caBundle")
		}
		if insecure {
			v.invalidRaw("spec.insecureSkipTLSVerify", "true", "local APIServices may not have insecureSkipTLSVerify")
		}
		return
	}
	if str(svc, "namespace") == "" {
		v.required("spec.service.namespace", "")
	}
	if str(svc, "name") == "" {
		v.required("spec.service.name", "")
	}
	if port, _ := integer(svc, "port"); port < 1 || port > 65535 {
		v.invalidRaw("spec.service.port", strconv.FormatInt(port, 10), "port is not valid: must be between 1 and 65535, inclusive")
	}
	if insecure && caBundle > 0 {
		v.invalidRaw("spec.insecureSkipTLSVerify", "true", "may not be true if caBundle is present")
	}
}

// validateStorageVersionMigration checks the resource a migration names:
// a DNS-1035 label, in a group that is a DNS subdomain.
func validateStorageVersionMigration(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	res := sub(sub(obj, "spec"), "resource")
	if r := str(res, "resource"); r == "" {
		v.required("spec.resource.resource", "resource is required to be set")
	} else if probs := validation.DNS1035LabelProblems(r); len(probs) > 0 {
		v.invalid("spec.resource.resource", r, strings.Join(probs, ","))
	}
	if g := str(res, "group"); g != "" {
		if probs := validation.SubdomainProblems(g); len(probs) > 0 {
			v.invalid("spec.resource.group", g, strings.Join(probs, ","))
		}
	}
}

// storageVersionMigrationUpdate forbids changing a migration's spec,
// shown as the real server's Go struct.
func storageVersionMigrationUpdate(v *validator, obj, old *jsonv.Value) {
	if same(obj, old, "spec") {
		return
	}
	res := sub(sub(obj, "spec"), "resource")
	gr := jsonv.NewObject()
	gr.Set("group", jsonv.NewString(str(res, "group")))
	gr.Set("resource", jsonv.NewString(str(res, "resource")))
	shown := jsonv.NewObject()
	shown.Set("Resource", gr)
	v.invalidRaw("spec", string(jsonv.Marshal(shown)), "field is immutable")
}
