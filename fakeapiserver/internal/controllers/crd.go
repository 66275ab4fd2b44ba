package controllers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/cel"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
	tbl "github.com/kubecache/kubecache/fakeapiserver/internal/table"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// CustomResourceDefinitions: creating one (apiextensions.k8s.io/v1) makes
// its resource servable and discoverable at once, with the conditions
// NamesAccepted and Established set; updating it re-registers its
// versions; deleting it deletes its objects (watchers see DELETED) and
// removes the resource.

// CRDSpec is the part of a CustomResourceDefinition the server reads.
type CRDSpec struct {
	Group string `json:"group"`
	Names struct {
		Plural     string   `json:"plural"`
		Singular   string   `json:"singular,omitempty"`
		Kind       string   `json:"kind"`
		ListKind   string   `json:"listKind,omitempty"`
		ShortNames []string `json:"shortNames,omitempty"`
		Categories []string `json:"categories,omitempty"`
	} `json:"names"`
	Scope    string `json:"scope"`
	Versions []struct {
		Name               string  `json:"name"`
		Served             bool    `json:"served"`
		Storage            bool    `json:"storage"`
		Deprecated         bool    `json:"deprecated,omitempty"`
		DeprecationWarning *string `json:"deprecationWarning,omitempty"`
		Subresources       *struct {
			Status *json.RawMessage `json:"status,omitempty"`
			Scale  *json.RawMessage `json:"scale,omitempty"`
		} `json:"subresources,omitempty"`
		SelectableFields []struct {
			JSONPath string `json:"jsonPath"`
		} `json:"selectableFields,omitempty"`
		AdditionalPrinterColumns []tbl.PrinterColumn `json:"additionalPrinterColumns,omitempty"`
		Schema                   *struct {
			OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema,omitempty"`
		} `json:"schema,omitempty"`
	} `json:"versions"`
}

// singular is the CRD's singular name, by default its kind in lower case.
func (s *CRDSpec) singular() string {
	if s.Names.Singular != "" {
		return s.Names.Singular
	}
	return strings.ToLower(s.Names.Kind)
}

// listKind is the kind of the CRD's lists, by default its kind + "List".
func (s *CRDSpec) listKind() string {
	if s.Names.ListKind != "" {
		return s.Names.ListKind
	}
	return s.Names.Kind + "List"
}

// ParseCRDSpec reads the spec of a CustomResourceDefinition from its
// top-level members.
func ParseCRDSpec(rest []jsonv.Member) (*CRDSpec, error) {
	specV := storage.FindMember(rest, "spec")
	if specV == nil {
		return nil, fmt.Errorf("spec is missing")
	}
	var spec CRDSpec
	if err := json.Unmarshal(jsonv.Marshal(*specV), &spec); err != nil {
		return nil, err
	}
	return &spec, nil
}

// crdHook validates a CustomResourceDefinition and sets its status.
func (s *Controllers) crdHook(_ context.Context, m *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, error) {
	invalidCRD := func(errs ...apistatus.FieldError) error {
		return apistatus.Invalid("apiextensions.k8s.io", "CustomResourceDefinition", m.Name, errs)
	}
	spec, err := ParseCRDSpec(rest)
	if err != nil {
		return nil, invalidCRD(apistatus.FieldInvalid("spec", "", err.Error()))
	}
	var errs []apistatus.FieldError
	if spec.Group == "" {
		errs = append(errs, apistatus.FieldRequired("spec.group", ""))
	}
	if spec.Names.Plural == "" {
		errs = append(errs, apistatus.FieldRequired("spec.names.plural", ""))
	}
	if spec.Names.Kind == "" {
		errs = append(errs, apistatus.FieldRequired("spec.names.kind", ""))
	}
	if want := spec.Names.Plural + "." + spec.Group; m.Name != want {
		errs = append(errs, apistatus.FieldInvalid("metadata.name", m.Name, fmt.Sprintf("must be spec.names.plural+\".\"+spec.group")))
	}
	if spec.Scope != "Namespaced" && spec.Scope != "Cluster" {
		errs = append(errs, apistatus.FieldNotSupported("spec.scope", spec.Scope, "Cluster", "Namespaced"))
	}
	storageVersions := 0
	for _, v := range spec.Versions {
		if v.Storage {
			storageVersions++
		}
	}
	if len(spec.Versions) == 0 {
		errs = append(errs, apistatus.FieldRequired("spec.versions", "must have exactly one version marked as storage version"))
	} else if storageVersions != 1 {
		errs = append(errs, apistatus.FieldInvalidRaw("spec.versions", fmt.Sprint(storageVersions), "must have exactly one version marked as storage version"))
	}
	errs = append(errs, checkRules(spec)...)
	if len(errs) > 0 {
		return nil, invalidCRD(errs...)
	}
	now := meta.NewTime(s.now())
	singular, listKind := spec.singular(), spec.listKind()
	var stored []string
	if st := storage.FindMember(rest, "status"); st != nil {
		if sv := st.Get("storedVersions"); sv != nil && sv.Kind == jsonv.Array {
			for _, v := range sv.Arr {
				stored = append(stored, v.Str)
			}
		}
	}
	for _, v := range spec.Versions {
		if v.Storage && !containsString(stored, v.Name) {
			stored = append(stored, v.Name)
		}
	}
	status := map[string]any{
		"conditions": []map[string]any{
			{"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts", "message": "no conflicts found"},
			{"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"},
		},
		"acceptedNames": map[string]any{
			"plural": spec.Names.Plural, "singular": singular, "kind": spec.Names.Kind, "listKind": listKind,
			"shortNames": spec.Names.ShortNames, "categories": spec.Names.Categories,
		},
		"storedVersions": stored,
	}
	if prev := storage.FindMember(rest, "status"); prev != nil {
		// Keep the transition times of conditions that already held.
		if conds := prev.Get("conditions"); conds != nil && len(conds.Arr) == 2 {
			status["conditions"] = json.RawMessage(jsonv.Marshal(*conds))
		}
	}
	res, err := jsonv.ParseGo(status)
	if err != nil {
		return nil, err
	}
	v := res.Value
	if an := v.Get("acceptedNames"); an != nil {
		for _, k := range []string{"shortNames", "categories"} {
			if x := an.Get(k); x != nil && x.Kind == jsonv.Null {
				an.Delete(k)
			}
		}
	}
	return storage.ReplaceMember(rest, "status", &v), nil
}

// checkRules checks that every version's schema is structural and
// compiles its x-kubernetes-validations, returning the real errors of a
// schema that is not or of rules that do not compile, at the place the real
// server names: spec.validation when every version has the same schema
// (the real server's internal form then holds it once), else the
// version's own.
func checkRules(spec *CRDSpec) []apistatus.FieldError {
	shared := len(spec.Versions) > 0
	for _, v := range spec.Versions {
		if v.Schema == nil || spec.Versions[0].Schema == nil || !bytes.Equal(v.Schema.OpenAPIV3Schema, spec.Versions[0].Schema.OpenAPIV3Schema) {
			shared = false
		}
	}
	var errs []apistatus.FieldError
	for i, v := range spec.Versions {
		if v.Schema == nil || len(v.Schema.OpenAPIV3Schema) == 0 {
			continue
		}
		path := fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i)
		if shared {
			path = "spec.validation.openAPIV3Schema"
		}
		// A schema that is not structural, or that breaks a rule of CRD
		// schemas, is refused before any rule is compiled.
		bad := append(structural.Problems(v.Schema.OpenAPIV3Schema, path), structural.Rules(v.Schema.OpenAPIV3Schema, path)...)
		if statusEnabled(spec, i, shared) {
			bad = append(bad, structural.StatusRootRules(v.Schema.OpenAPIV3Schema, path)...)
		}
		slices.SortStableFunc(bad, func(a, b apistatus.FieldError) int { return strings.Compare(a.Field, b.Field) })
		if len(bad) > 0 {
			errs = append(errs, bad...)
		} else if st, err := structural.Parse(v.Schema.OpenAPIV3Schema); err == nil {
			_, bad := cel.Compile(st, path)
			errs = append(errs, bad...)
		}
		if shared {
			break
		}
	}
	return errs
}

// statusEnabled reports whether the schema of version i is held to the
// rules of a root with the status subresource on: its version has the
// subresource, or, for a schema every version shares, any version has.
func statusEnabled(spec *CRDSpec, i int, shared bool) bool {
	for j, v := range spec.Versions {
		if (shared || j == i) && v.Subresources != nil && v.Subresources.Status != nil {
			return true
		}
	}
	return false
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// crdAfter registers, re-registers or removes the custom resource.
func (s *Controllers) crdAfter(ctx context.Context, typ watch.EventType, prev, obj *storage.Object) {
	if prev != nil {
		if spec := s.crdResources(prev); len(spec) > 0 {
			if typ == watch.Deleted {
				// The objects go while their kind is still served, so
				// the garbage collector can tell their dependents.
				s.deleteAllCustom(ctx, spec[0])
			}
			for _, r := range spec {
				s.registry.Remove(r.Group, r.Version, r.Name)
			}
			if typ == watch.Deleted {
				s.store.DropTable(spec[0].StorageKey())
			}
		}
	}
	if typ == watch.Deleted {
		return
	}
	resources := s.crdResources(obj)
	for _, r := range resources {
		s.registry.Add(r)
	}
	if typ == watch.Modified && len(resources) > 0 && specChanged(prev, obj) {
		// The real server rebuilds the resource's storage: objects read
		// with the new schema at every resourceVersion, open watches
		// ended, and a watch from before the change refused as too old.
		s.reapplySchema(resources)
		s.store.ResetWatches(resources[0].StorageKey(), obj.RV)
	}
}

// specChanged reports whether a CRD's spec differs between prev and obj
// (a change to its metadata or status alone leaves the storage be).
func specChanged(prev, obj *storage.Object) bool {
	if prev == nil {
		return true
	}
	a, errA := storage.RestOf(prev)
	b, errB := storage.RestOf(obj)
	if errA != nil || errB != nil {
		return true
	}
	sa, sb := storage.FindMember(a, "spec"), storage.FindMember(b, "spec")
	if sa == nil || sb == nil {
		return sa != sb
	}
	return !jsonv.Equal(*sa, *sb)
}

// reapplySchema prunes and defaults the stored objects of a changed CRD
// with the schema of the version each is stored at, as the real server
// does whenever it reads one: an object stored before a default was added
// is served with it, one stored with a field since removed without it. No
// resourceVersion changes and no watch event is sent.
func (s *Controllers) reapplySchema(resources []*registry.Resource) {
	byVersion := map[string]*registry.Resource{}
	for _, r := range resources {
		byVersion[r.Group+"/"+r.Version] = r
	}
	s.store.Rewrite(resources[0].StorageKey(), func(o *storage.Object) *storage.Object {
		res := byVersion[o.APIVersion]
		if res == nil || res.CustomSchema == nil {
			return o
		}
		rest, err := storage.RestOf(o)
		if err != nil {
			return o
		}
		kept, _, _ := validation.CheckCustom(rest, res)
		if n := o.WithRest(kept); !bytes.Equal(n.Body, o.Body) {
			return n
		}
		return o
	})
}

// crdResources derives the served resources of a CRD object.
func (s *Controllers) crdResources(obj *storage.Object) []*registry.Resource {
	rest, err := storage.RestOf(obj)
	if err != nil {
		return nil
	}
	spec, err := ParseCRDSpec(rest)
	if err != nil {
		return nil
	}
	singular, listKind := spec.singular(), spec.listKind()
	storageVersion := ""
	for _, v := range spec.Versions {
		if v.Storage {
			storageVersion = v.Name
		}
	}
	sum := sha256.Sum256([]byte(spec.Group + "/" + storageVersion + "/" + spec.Names.Kind))
	hash := base64.StdEncoding.EncodeToString(sum[:8])
	var out []*registry.Resource
	for _, v := range spec.Versions {
		if !v.Served {
			continue
		}
		r := &registry.Resource{
			Group: spec.Group, Version: v.Name, Name: spec.Names.Plural, Singular: singular,
			Kind: spec.Names.Kind, ListKind: listKind, Namespaced: spec.Scope == "Namespaced",
			Verbs: registry.AllVerbs, ShortNames: spec.Names.ShortNames, Categories: spec.Names.Categories,
			Generation: true, Custom: true, NameRule: registry.NamePathSegment, RequireResourceVersion: true,
			StorageVersionHash: hash, PrinterColumns: v.AdditionalPrinterColumns,
		}
		if v.Deprecated {
			r.DeprecationWarning = spec.Group + "/" + v.Name + " " + spec.Names.Kind + " is deprecated"
			if v.DeprecationWarning != nil {
				r.DeprecationWarning = *v.DeprecationWarning
			}
		}
		if v.Subresources != nil {
			if v.Subresources.Status != nil {
				r.Subresources = append(r.Subresources, registry.Subresource{Name: "status", Kind: spec.Names.Kind, Verbs: []string{"get", "patch", "update"}})
			}
			if v.Subresources.Scale != nil {
				r.Subresources = append(r.Subresources, registry.Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}})
			}
		}
		if v.Schema != nil && len(v.Schema.OpenAPIV3Schema) > 0 {
			// A schema that does not convert checks nothing: the real
			// server would have refused such a definition.
			if schema, err := openapi.FromJSONSchema(v.Schema.OpenAPIV3Schema); err == nil {
				r.CustomSchema = schema
				r.OpenAPISchema = v.Schema.OpenAPIV3Schema
			}
			if st, err := structural.Parse(v.Schema.OpenAPIV3Schema); err == nil {
				r.Structural = st
				if rules, errs := cel.Compile(st, ""); rules != nil && len(errs) == 0 {
					r.CustomRules = rules
				}
			}
		}
		if len(v.SelectableFields) > 0 {
			r.FieldSpecs = map[string]registry.FieldSpec{}
			for _, f := range v.SelectableFields {
				name := strings.TrimPrefix(f.JSONPath, ".")
				r.Fields = append(r.Fields, name)
				r.FieldSpecs[name] = registry.FieldSpec{Path: strings.Split(name, ".")}
			}
		}
		out = append(out, r)
	}
	return out
}

// deleteAllCustom deletes every object of a custom resource; the garbage
// collector and namespace deletion see each delete.
func (s *Controllers) deleteAllCustom(ctx context.Context, res *registry.Resource) {
	table := res.StorageKey()
	snap, _ := s.store.Current(table)
	var objs []*storage.Object
	snap.Ascend("", func(_ string, obj *storage.Object) bool {
		objs = append(objs, obj)
		return true
	})
	for _, obj := range objs {
		last, err := s.store.Commit(table, obj.Key, watch.Deleted, obj, obj.WithResourceVersion)
		if err == nil {
			s.collect(ctx, res, watch.Deleted, obj, last)
		}
	}
}
