package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/meta"
)

// Kind names a built-in kind at the version it is stored at.
type Kind struct {
	Group, Version, Kind string
	// Request is the apiVersion the request addressed ("" when it is
	// the stored one): an Event written through events.k8s.io/v1 is
	// stored as a core Event and validated by that API's rules.
	Request string
}

// Invalid is a write the validators refuse: the server answers 422
// Invalid with these causes (apistatus.Invalid).
type Invalid struct {
	Errors []FieldError
}

func (e *Invalid) Error() string {
	if len(e.Errors) == 0 {
		return "invalid"
	}
	return e.Errors[0].String()
}

// Write is what a create or update of a built-in object needs beyond the
// object: the write's environment, the Service allocator (nil: Services
// get no addresses) and whether it is a dry run.
type Write struct {
	Env      Env
	Services *ServiceAllocator
	DryRun   bool
}

// Create does to a decoded new object what the real server does between
// decoding it and storing it: Decoded, then AdmitCreate.
func (w Write) Create(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) error {
	w.Decoded(k, m, obj)
	return w.AdmitCreate(k, m, obj)
}

// Update is Create for a replacement of a stored object: Decoded, then
// AdmitUpdate.
func (w Write) Update(k Kind, m *meta.ObjectMeta, obj, old *jsonv.Value) error {
	w.Decoded(k, m, obj)
	return w.AdmitUpdate(k, m, obj, old)
}

// Decoded is what the real server's decoding does to a body: conversion
// (a Secret's stringData into data), defaulting, and the encoding of the
// Go types. The real server records managedFields from the object as
// Decoded leaves it, before the registry and the admission plugins change
// it. m is the object's metadata; obj its other members, changed in
// place. A kind it does not know is left alone.
func (w Write) Decoded(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) {
	if k.Group == "" && k.Kind == "Secret" {
		mergeStringData(obj)
	}
	Default(k.Group, k.Version, k.Kind, m, obj)
	if k.Group == "apps" && k.Kind == "DaemonSet" && m != nil && m.ResourceVersion == "" {
		// The DaemonSet registry's create marks the template generation
		// in an annotation the field manager records.
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		if _, ok := m.Annotations["deprecated.daemonset.template.generation"]; !ok {
			m.Annotations["deprecated.daemonset.template.generation"] = "1"
		}
	}
	defs := openapi.Builtin()
	if def, _, ok := defs.ForKind(openapi.GVK{Group: k.Group, Version: k.Version, Kind: k.Kind}); ok {
		CompleteStructs(defs, def, obj)
	}
}

// AdmitCreate does to a Decoded new object what the real server does
// after recording managedFields, in its order: the registry's and
// admission plugins' changes, validation, a Service's addresses, and the
// encoding of the Go types. m needs its uid and name. It returns *Invalid
// or *Forbidden when the write is refused, and then obj may be half
// changed.
func (w Write) AdmitCreate(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) error {
	if err := PrepareCreate(k.Group, k.Kind, m, obj, w.Env); err != nil {
		return err
	}
	if errs := validateCreate(k, m, obj); len(errs) > 0 {
		return &Invalid{Errors: errs}
	}
	if k.Group == "" && k.Kind == "Service" && w.Services != nil {
		if errs := w.Services.Allocate(ServiceOwner(m), present(obj, "spec"), w.DryRun); len(errs) > 0 {
			return &Invalid{Errors: errs}
		}
	}
	complete(k, obj)
	return nil
}

// AdmitUpdate is AdmitCreate for a replacement of a stored object: old
// holds the stored object's members other than metadata (read only). A
// Service keeps its addresses unless the update changes them.
func (w Write) AdmitUpdate(k Kind, m *meta.ObjectMeta, obj, old *jsonv.Value) error {
	PrepareUpdate(k.Group, k.Kind, obj, old)
	if k.Group == "" && k.Kind == "Service" {
		// The allocated addresses are the stored object's unless the
		// update names its own; carry them before validating.
		carryServiceAddresses(present(obj, "spec"), present(old, "spec"))
	}
	if errs := validateUpdate(k, m, obj, old); len(errs) > 0 {
		return &Invalid{Errors: errs}
	}
	if k.Group == "" && k.Kind == "Service" && w.Services != nil {
		if errs := w.Services.Update(ServiceOwner(m), present(obj, "spec"), present(old, "spec"), w.DryRun); len(errs) > 0 {
			return &Invalid{Errors: errs}
		}
	}
	complete(k, obj)
	return nil
}

// validateCreate runs the validators of a create of k: the kind's, or
// an Event's rules of the API it was written through.
func validateCreate(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) []FieldError {
	if strictEvent(k) {
		return validateEventsV1Create(orEmptyMeta(m), obj)
	}
	return Validate(k.Group, k.Kind, m, obj)
}

// validateUpdate is validateCreate for an update from old.
func validateUpdate(k Kind, m *meta.ObjectMeta, obj, old *jsonv.Value) []FieldError {
	if strictEvent(k) && old != nil {
		return validateEventsV1Update(orEmptyMeta(m), obj, old)
	}
	return ValidateUpdate(k.Group, k.Kind, m, obj, old)
}

// orEmptyMeta returns m, or empty metadata for nil.
func orEmptyMeta(m *meta.ObjectMeta) *meta.ObjectMeta {
	if m == nil {
		return &meta.ObjectMeta{}
	}
	return m
}

// ServiceOwner is the key a Service's addresses are held under: its uid,
// so a failed create of a second object of the same name never frees the
// first one's, and a generated name that changes on retry keeps them.
func ServiceOwner(m *meta.ObjectMeta) string {
	if m.UID == "" {
		return m.Namespace + "/" + m.Name
	}
	return string(m.UID)
}

// carryServiceAddresses fills the cluster IPs and families an update
// leaves out from the stored spec.
func carryServiceAddresses(spec, old *jsonv.Value) {
	if spec == nil || old == nil || str(spec, "type") == "ExternalName" {
		return
	}
	for _, k := range []string{"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} {
		if empty(spec, k) && !empty(old, k) {
			spec.Set(k, old.Get(k).Clone())
		}
	}
}

// complete runs Complete with the kind's built-in schema, if it has one.
func complete(k Kind, obj *jsonv.Value) {
	defs := openapi.Builtin()
	if def, _, ok := defs.ForKind(openapi.GVK{Group: k.Group, Version: k.Version, Kind: k.Kind}); ok {
		Complete(defs, def, obj)
	}
}
