package openapi

import (
	"fmt"
	"slices"
	"strings"
)

// Schema is one node of an OpenAPI v3 schema, reduced to what the fake
// server needs: the shape of a value (type, properties, items, map values),
// the Kubernetes extensions that say how lists and maps merge, and the
// marker of a Go struct field that is never omitted. Descriptions,
// defaults other than {}, enums and validation keywords are not kept.
//
// A Schema with Ref set stands for the named definition; its other fields
// are the extensions written beside the reference (a property's patch
// strategy, say), which win over the definition's own.
type Schema struct {
	// Ref names a definition ("io.k8s.api.core.v1.PodSpec").
	Ref string
	// Type is "object", "array", "string", "integer", "number",
	// "boolean" or "" (any, or see OneOf).
	Type   string
	Format string
	// OneOf lists the alternatives of a value that may take several types
	// (IntOrString, Quantity).
	OneOf []*Schema
	// Properties are an object's named fields, in the order the real
	// server lists them (by name).
	Properties []Property
	// Items is the schema of an array's elements.
	Items *Schema
	// AdditionalProperties is the schema of a map's values.
	AdditionalProperties *Schema

	// ListType is x-kubernetes-list-type: "atomic", "set" or "map"
	// ("" means atomic to server-side apply).
	ListType string
	// ListMapKeys is x-kubernetes-list-map-keys: the fields that identify
	// an item of a list whose ListType is "map".
	ListMapKeys []string
	// MapType is x-kubernetes-map-type: "atomic" or "granular".
	MapType string
	// PatchStrategy is x-kubernetes-patch-strategy: "merge", "replace",
	// "retainKeys" or "merge,retainKeys".
	PatchStrategy string
	// PatchMergeKey is x-kubernetes-patch-merge-key: the field that
	// identifies an item of a list merged by strategic merge patch.
	PatchMergeKey string
	// PreserveUnknownFields is x-kubernetes-preserve-unknown-fields.
	PreserveUnknownFields bool
	// IntOrString is x-kubernetes-int-or-string.
	IntOrString bool
	// Nullable is a CRD schema's "nullable": null is kept as a value
	// (otherwise a custom resource's null field is dropped).
	Nullable bool
	// EmbeddedResource is x-kubernetes-embedded-resource.
	EmbeddedResource bool
	// DefaultEmpty records `"default": {}`: the field is a Go struct that
	// is never omitted, so an object decoded into its Go type always has
	// it (server-side apply's bookkeeping depends on that).
	DefaultEmpty bool
	// Default is the JSON literal of a scalar default ("\"TCP\"", "0"), as
	// a defaulted key of an associative list needs it.
	Default string
	// Required lists the properties an object always has: the fields of
	// its Go type that are never omitted (kube-openapi marks exactly
	// those).
	Required []string
	// GVK is x-kubernetes-group-version-kind, set on the top-level
	// definition of a kind.
	GVK []GVK
}

// Property is one named field of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// GVK identifies a kind: group ("" for the core group), version and kind.
type GVK struct {
	Group, Version, Kind string
}

// String returns "group/version, Kind=kind" as the server writes it, or
// "version, Kind=kind" for the core group.
func (g GVK) String() string {
	if g.Group == "" {
		return g.Version + ", Kind=" + g.Kind
	}
	return g.Group + "/" + g.Version + ", Kind=" + g.Kind
}

// GroupVersion returns "v1" for the core group and "group/version"
// otherwise.
func (g GVK) GroupVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// Property returns the schema of the named field, or nil.
func (s *Schema) Property(name string) *Schema {
	if s == nil {
		return nil
	}
	for i := range s.Properties {
		if s.Properties[i].Name == name {
			return s.Properties[i].Schema
		}
	}
	return nil
}

// Definitions is a set of named schemas that refer to each other by name.
// It is read-only once built and safe for concurrent use.
type Definitions struct {
	byName map[string]*Schema
	byGVK  map[GVK]string
}

// NewDefinitions indexes schemas by name and by the kinds they declare.
// It fails when a reference names a definition that is missing.
func NewDefinitions(schemas map[string]*Schema) (*Definitions, error) {
	d := &Definitions{byName: schemas, byGVK: map[GVK]string{}}
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := schemas[n]
		for _, g := range s.GVK {
			if _, dup := d.byGVK[g]; !dup {
				d.byGVK[g] = n
			}
		}
		if err := d.checkRefs(n, s); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *Definitions) checkRefs(where string, s *Schema) error {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		if _, ok := d.byName[s.Ref]; !ok {
			return fmt.Errorf("openapi: %s refers to missing definition %q", where, s.Ref)
		}
	}
	for _, p := range s.Properties {
		if err := d.checkRefs(where+"."+p.Name, p.Schema); err != nil {
			return err
		}
	}
	for _, o := range s.OneOf {
		if err := d.checkRefs(where, o); err != nil {
			return err
		}
	}
	if err := d.checkRefs(where+"[]", s.Items); err != nil {
		return err
	}
	return d.checkRefs(where+"{}", s.AdditionalProperties)
}

// Names returns every definition name, sorted.
func (d *Definitions) Names() []string {
	out := make([]string, 0, len(d.byName))
	for n := range d.byName {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Get returns the named definition, or nil.
func (d *Definitions) Get(name string) *Schema {
	if d == nil {
		return nil
	}
	return d.byName[name]
}

// ForKind returns the name and schema of the definition declaring gvk.
func (d *Definitions) ForKind(gvk GVK) (string, *Schema, bool) {
	if d == nil {
		return "", nil, false
	}
	n, ok := d.byGVK[gvk]
	if !ok {
		return "", nil, false
	}
	return n, d.byName[n], true
}

// Kinds returns every kind some definition declares, sorted by group,
// version and kind.
func (d *Definitions) Kinds() []GVK {
	out := make([]GVK, 0, len(d.byGVK))
	for g := range d.byGVK {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b GVK) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		if c := strings.Compare(a.Version, b.Version); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return out
}

// Resolve follows s's reference and returns the effective schema: the
// definition with the extensions written beside the reference laid over
// it. A schema without a reference is returned as it is; nil stays nil.
func (d *Definitions) Resolve(s *Schema) *Schema {
	for depth := 0; s != nil && s.Ref != "" && depth < 8; depth++ {
		def := d.Get(s.Ref)
		if def == nil {
			return nil
		}
		if !s.hasOverlay() {
			s = def
			continue
		}
		merged := *def
		overlay(&merged, s)
		s = &merged
	}
	return s
}

func (s *Schema) hasOverlay() bool {
	return s.ListType != "" || len(s.ListMapKeys) > 0 || s.MapType != "" || s.PatchStrategy != "" ||
		s.PatchMergeKey != "" || s.PreserveUnknownFields || s.IntOrString || s.EmbeddedResource || s.DefaultEmpty || s.Default != ""
}

// overlay copies the extensions set on ref onto dst.
func overlay(dst, ref *Schema) {
	dst.Ref = ""
	if ref.ListType != "" {
		dst.ListType = ref.ListType
	}
	if len(ref.ListMapKeys) > 0 {
		dst.ListMapKeys = ref.ListMapKeys
	}
	if ref.MapType != "" {
		dst.MapType = ref.MapType
	}
	if ref.PatchStrategy != "" {
		dst.PatchStrategy = ref.PatchStrategy
	}
	if ref.PatchMergeKey != "" {
		dst.PatchMergeKey = ref.PatchMergeKey
	}
	dst.PreserveUnknownFields = dst.PreserveUnknownFields || ref.PreserveUnknownFields
	dst.IntOrString = dst.IntOrString || ref.IntOrString
	dst.EmbeddedResource = dst.EmbeddedResource || ref.EmbeddedResource
	dst.DefaultEmpty = ref.DefaultEmpty
	if ref.Default != "" {
		dst.Default = ref.Default
	}
}

// Field returns the resolved schema of a field of the object s describes:
// a named property, else the map's value schema. It returns nil when s
// says nothing about the field (an unknown field, or s is nil).
func (d *Definitions) Field(s *Schema, name string) *Schema {
	s = d.Resolve(s)
	if s == nil {
		return nil
	}
	if p := s.Property(name); p != nil {
		return d.Resolve(p)
	}
	if s.AdditionalProperties != nil {
		return d.Resolve(s.AdditionalProperties)
	}
	return nil
}

// Elem returns the resolved schema of an array's items, or nil.
func (d *Definitions) Elem(s *Schema) *Schema {
	s = d.Resolve(s)
	if s == nil {
		return nil
	}
	return d.Resolve(s.Items)
}

// IsStruct reports whether s describes an object with named fields (as
// opposed to a map, whose keys are data).
func (s *Schema) IsStruct() bool {
	return s != nil && len(s.Properties) > 0
}

// IsMap reports whether s describes a map from arbitrary keys to values.
func (s *Schema) IsMap() bool {
	return s != nil && len(s.Properties) == 0 && s.AdditionalProperties != nil
}
