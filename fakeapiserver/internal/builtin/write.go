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
// (a Secret's stringData into data), defaulting, and the Go types'
// never-omitted structs and dropped zero scalars. An empty list stays, as
// Go's decoding keeps [] as a set, empty slice that the registry and the
// validators see (Recorded drops it). The real server records
// managedFields from the object as Decoded and then Recorded leave it,
// before the registry and the admission plugins change it. m is the
// object's metadata; obj its other members, changed in place. A kind it
// does not know is left alone.
func (w Write) Decoded(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) {
	if k.Group == "" && k.Kind == "Secret" {
		mergeStringData(obj)
	}
	Default(k.Group, k.Version, k.Kind, m, obj)
	defaultTaintTimes(k, obj, w.Env.Now)
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
	isPod := k.Group == "" && k.Kind == "Pod"
	overheadGiven := isPod && emptyOverhead(sub(obj, "spec"))
	defs := openapi.Builtin()
	if def, _, ok := defs.ForKind(openapi.GVK{Group: k.Group, Version: k.Version, Kind: k.Kind}); ok {
		CompleteDecoded(defs, def, obj)
	}
	if isPod {
		keepEmptyOverhead(present(obj, "spec"), overheadGiven)
	}
}

// Recorded drops from a Decoded object the empty lists of its omitempty
// fields, in place: the real field manager reads an update's object
// through the Go types, which leave them out, so an update (not an
// apply, whose configuration is read as sent) does not own them.
func Recorded(k Kind, obj *jsonv.Value) {
	defs := openapi.Builtin()
	if def, _, ok := defs.ForKind(openapi.GVK{Group: k.Group, Version: k.Version, Kind: k.Kind}); ok {
		CompleteStructs(defs, def, obj)
	}
}

// AdmitCreate does to a Decoded new object what the real server does
// after recording managedFields, in its order: a Service's addresses
// (the registry allocates before anything else looks at the object), the
// registry's and admission plugins' changes, validation, and the
// encoding of the Go types. m needs its uid and name. It returns *Invalid
// or *Forbidden when the write is refused (RangeFull when no cluster IP
// or node port is left), and then obj may be half changed and nothing
// stays reserved.
func (w Write) AdmitCreate(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) error {
	undo := func() {}
	if isService(k) {
		var err error
		if undo, err = w.beginService(m, present(obj, "spec"), nil); err != nil {
			return err
		}
	}
	if err := PrepareCreate(k.Group, k.Kind, m, obj, w.Env); err != nil {
		undo()
		return err
	}
	if errs := validateCreate(k, m, obj); len(errs) > 0 {
		undo()
		return &Invalid{Errors: errs}
	}
	if k.Group == "" && k.Kind == "Pod" {
		// The validating step of the RuntimeClass admission plugin.
		if msg := validateRuntimeClassOverhead(sub(obj, "spec"), w.Env.RuntimeClass); msg != "" {
			undo()
			return &Forbidden{Message: msg}
		}
	}
	complete(k, obj)
	return nil
}

// AdmitUpdate is AdmitCreate for a replacement of a stored object: old
// holds the stored object's members other than metadata (read only). A
// Service keeps its addresses unless the update changes them.
func (w Write) AdmitUpdate(k Kind, m *meta.ObjectMeta, obj, old *jsonv.Value) error {
	undo := func() {}
	if isService(k) {
		var err error
		oldSpec := present(old, "spec")
		if oldSpec == nil {
			oldSpec = &jsonv.Value{Kind: jsonv.Object}
		}
		if undo, err = w.beginService(m, present(obj, "spec"), oldSpec); err != nil {
			return err
		}
	}
	if k.Group == "" && k.Kind == "Pod" {
		dropEmptyOverhead(present(obj, "spec"))
	}
	PrepareUpdate(k.Group, k.Kind, obj, old)
	bumpTaintTime(k, obj, old, w.Env.Now)
	if errs := validateUpdate(k, m, obj, old); len(errs) > 0 {
		undo()
		return &Invalid{Errors: errs}
	}
	complete(k, obj)
	return nil
}

// isService reports whether k is a core Service.
func isService(k Kind) bool { return k.Group == "" && k.Kind == "Service" }

// beginService does to a Service's spec what the real registry does
// before the strategy prepares and validates it (oldSpec is the stored
// spec on an update, nil on a create): w.Services settles the cluster IP
// fields and allocates (Allocate, Update); without an allocator the
// fields are only kept in step and carried over an update. undo gives
// back what the write reserved, for a later step that refuses it. The
// error is *Invalid, or RangeFull naming the Service.
func (w Write) beginService(m *meta.ObjectMeta, spec, oldSpec *jsonv.Value) (undo func(), err error) {
	undo = func() {}
	if spec == nil {
		return undo, nil
	}
	if w.Services == nil {
		if oldSpec != nil {
			patchAllocatedIPs(spec, oldSpec)
			carryServiceFamilies(spec, oldSpec)
		}
		normalizeClusterIPs(spec, oldSpec)
		return undo, nil
	}
	key := ServiceOwner(m)
	if !w.DryRun {
		before := w.Services.snapshot(key)
		undo = func() { w.Services.restore(key, before) }
	}
	var errs []FieldError
	if oldSpec == nil {
		errs, err = w.Services.Allocate(key, spec, w.DryRun)
	} else {
		errs, err = w.Services.Update(key, spec, oldSpec, w.DryRun)
	}
	if full, ok := err.(RangeFull); ok {
		full.Service = m.Name
		return undo, full
	}
	if len(errs) > 0 {
		return undo, &Invalid{Errors: errs}
	}
	return undo, err
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

// carryServiceFamilies fills the IP families and policy an update of a
// Service that keeps its cluster IPs leaves out from the stored spec
// (what the allocator would settle them to).
func carryServiceFamilies(spec, old *jsonv.Value) {
	if str(spec, "type") == "ExternalName" || str(old, "type") == "ExternalName" {
		return
	}
	for _, k := range []string{"ipFamilies", "ipFamilyPolicy"} {
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
