package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/meta"
)

// Kind names a built-in kind at the version a request uses.
type Kind struct {
	Group, Version, Kind string
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
// decoding it and storing it, in the real order: defaulting, the
// registry's and admission plugins' changes, validation, a Service's
// addresses, and the encoding of the Go types (Complete). m is the
// object's metadata (uid and name set); obj its other members, changed in
// place. It returns *Invalid or *Forbidden when the write is refused, and
// then obj may be half changed. A kind it does not know is left alone.
func (w Write) Create(k Kind, m *meta.ObjectMeta, obj *jsonv.Value) error {
	Default(k.Group, k.Version, k.Kind, m, obj)
	if err := PrepareCreate(k.Group, k.Kind, m, obj, w.Env); err != nil {
		return err
	}
	if errs := Validate(k.Group, k.Kind, m, obj); len(errs) > 0 {
		return &Invalid{Errors: errs}
	}
	if k.Group == "" && k.Kind == "Service" && w.Services != nil {
		if errs := w.Services.Allocate(m.Namespace+"/"+m.Name, present(obj, "spec"), w.DryRun); len(errs) > 0 {
			return &Invalid{Errors: errs}
		}
	}
	complete(k, obj)
	return nil
}

// Update is Create for a replacement of a stored object: old holds the
// stored object's members other than metadata (read only). A Service
// keeps its addresses unless the update changes them.
func (w Write) Update(k Kind, m *meta.ObjectMeta, obj, old *jsonv.Value) error {
	Default(k.Group, k.Version, k.Kind, m, obj)
	PrepareUpdate(k.Group, k.Kind, obj, old)
	if k.Group == "" && k.Kind == "Service" {
		// The allocated addresses are the stored object's unless the
		// update names its own; carry them before validating.
		carryServiceAddresses(present(obj, "spec"), present(old, "spec"))
	}
	if errs := ValidateUpdate(k.Group, k.Kind, m, obj, old); len(errs) > 0 {
		return &Invalid{Errors: errs}
	}
	if k.Group == "" && k.Kind == "Service" && w.Services != nil {
		if errs := w.Services.Update(m.Namespace+"/"+m.Name, present(obj, "spec"), present(old, "spec"), w.DryRun); len(errs) > 0 {
			return &Invalid{Errors: errs}
		}
	}
	complete(k, obj)
	return nil
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
