package validation

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// Validation of what every object has: metadata, and of the write
// options. The types of every field are checked against the kind's schema
// in types.go; what is not validated is listed in docs/fidelity.md
// ("Validation the fake server does not do").

// nameProblems returns what is wrong with a name under rule, as the real
// server words it.
func nameProblems(name string, rule registry.NameRule) []string {
	var errs []string
	switch rule {
	case registry.NameLabel:
		errs = LabelProblems(name)
	case registry.NameDNS1035:
		errs = DNS1035LabelProblems(name)
	case registry.NamePathSegment:
		errs = PathSegmentProblems(name)
	case registry.NameIPAddress, registry.NameByKind:
		// The kind's validator checks it, with the object's other
		// fields.
	default:
		errs = SubdomainProblems(name)
	}
	return errs
}

// ObjectMeta checks metadata common to create and update.
func ObjectMeta(res *registry.Resource, m *meta.ObjectMeta) []apistatus.FieldError {
	var errs []apistatus.FieldError
	if m.GenerateName != "" {
		// As the real server: the prefix follows the name rule, a
		// trailing dash allowed (the suffix follows it).
		prefix := m.GenerateName
		if len(prefix) > 1 && strings.HasSuffix(prefix, "-") {
			prefix = prefix[:len(prefix)-1] + "a"
		}
		for _, p := range nameProblems(prefix, res.NameRule) {
			errs = append(errs, apistatus.FieldInvalid("metadata.generateName", m.GenerateName, p))
		}
	}
	if m.Name == "" {
		errs = append(errs, apistatus.FieldRequired("metadata.name", "name or generateName is required"))
	} else {
		for _, p := range nameProblems(m.Name, res.NameRule) {
			errs = append(errs, apistatus.FieldInvalid("metadata.name", m.Name, p))
		}
	}
	if res.Namespaced {
		if m.Namespace == "" {
			errs = append(errs, apistatus.FieldRequired("metadata.namespace", ""))
		}
	} else if m.Namespace != "" {
		errs = append(errs, apistatus.FieldForbidden("metadata.namespace", "not allowed on this type"))
	}
	if m.Generation < 0 {
		errs = append(errs, apistatus.FieldInvalidRaw("metadata.generation", fmt.Sprint(m.Generation), "must be greater than or equal to 0"))
	}
	for k, v := range m.Labels {
		if err := selector.ValidateLabelKey(k); err != nil {
			errs = append(errs, apistatus.FieldInvalid("metadata.labels", k, err.Error()))
		}
		if err := selector.ValidateLabelValue(v); err != nil {
			errs = append(errs, apistatus.FieldInvalid("metadata.labels", v, err.Error()))
		}
	}
	size := 0
	for k, v := range m.Annotations {
		size += len(k) + len(v)
		if err := selector.ValidateLabelKey(k); err != nil {
			errs = append(errs, apistatus.FieldInvalid("metadata.annotations", k, err.Error()))
		}
	}
	if size > 256*1024 {
		errs = append(errs, tooLong("metadata.annotations", 256*1024))
	}
	for i, ref := range m.OwnerReferences {
		p := fmt.Sprintf("metadata.ownerReferences[%d]", i)
		if ref.APIVersion == "" {
			errs = append(errs, apistatus.FieldInvalid(p+".apiVersion", ref.APIVersion, "version must not be empty"))
		}
		if ref.Kind == "" {
			errs = append(errs, apistatus.FieldInvalid(p+".kind", ref.Kind, "kind must not be empty"))
		}
		if ref.Name == "" {
			errs = append(errs, apistatus.FieldInvalid(p+".name", ref.Name, "name must not be empty"))
		}
		if ref.UID == "" {
			errs = append(errs, apistatus.FieldInvalid(p+".uid", ref.UID, "uid must not be empty"))
		}
	}
	for i, f := range m.Finalizers {
		if !strings.Contains(f, "/") && !isStandardFinalizer(f) {
			// The real server warns rather than fails for these.
			continue
		}
		if err := selector.ValidateLabelKey(f); err != nil {
			errs = append(errs, apistatus.FieldInvalid(fmt.Sprintf("metadata.finalizers[%d]", i), f, err.Error()))
		}
	}
	return errs
}

// tooLong is the real server's error for a value over limit bytes (the
// value itself is not shown).
func tooLong(field string, limit int) apistatus.FieldError {
	return apistatus.FieldError{Type: apistatus.CauseFieldValueTooLong, Field: field, Detail: fmt.Sprintf("may not be more than %d bytes", limit)}
}

// FieldManager checks the fieldManager parameter as the real
// server does: at most 128 bytes, printable characters only.
func FieldManager(manager string) []apistatus.FieldError {
	var errs []apistatus.FieldError
	if len(manager) > 128 {
		errs = append(errs, tooLong("fieldManager", 128))
	}
	for i, r := range manager {
		if !unicode.IsPrint(r) {
			errs = append(errs, apistatus.FieldInvalid("fieldManager", manager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}

func isStandardFinalizer(f string) bool {
	switch f {
	case "kubernetes", "orphan", "foregroundDeletion":
		return true
	}
	return false
}
