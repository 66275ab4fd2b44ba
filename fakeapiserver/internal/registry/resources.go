package registry

//go:generate go run ../gen -in ../../../e2e/testdata/real/discovery -out resources_builtin.go

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"

	tbl "github.com/kubecache/kubecache/fakeapiserver/internal/table"
)

// Resource describes one served resource: where it lives in the API, what
// discovery says about it, and which behaviour beyond plain storage it gets.
// The built-in table (resources_builtin.go) holds the real server's
// resources; CustomResourceDefinitions add more at run time.
type Resource struct {
	Group, Version string
	// Name is the plural resource name in URLs ("pods").
	Name       string
	Singular   string
	Kind       string
	ListKind   string
	Namespaced bool
	Verbs      []string
	ShortNames []string
	Categories []string
	// StorageVersionHash is what legacy discovery reports for the
	// resource (base64 of the first 8 bytes of the SHA-256 of the storage
	// group/version/kind).
	StorageVersionHash string
	// Subresources lists what discovery shows under this resource
	// ("status", "scale", "log"...); only "status" has behaviour.
	Subresources []Subresource

	// Generation says the server keeps metadata.generation (1 on create,
	// +1 on every change outside metadata and status).
	Generation bool
	// CreateOnUpdate lets a PUT to a missing object create it.
	CreateOnUpdate bool
	// RequireResourceVersion refuses a PUT without
	// metadata.resourceVersion (422), as for custom resources and leases.
	RequireResourceVersion bool
	// Fields are the field selectors the resource accepts besides
	// metadata.name and metadata.namespace.
	Fields []string
	// FieldSpecs says how to read each of Fields from an object.
	FieldSpecs map[string]FieldSpec
	// FieldLabels maps a field selector's field to the stored field it
	// reads, for a resource whose objects are stored in another group's
	// shape (events.k8s.io's regarding.kind reads the stored
	// involvedObject.kind), as the real server's field label conversion
	// does; FieldSpecs then reads the stored fields. Nil: each field
	// reads itself.
	FieldLabels map[string]string
	// FieldError formats the message for an unsupported field selector;
	// nil uses the generic one.
	FieldError func(field string) string
	// NoNamespaceField refuses metadata.namespace in field selectors (the
	// real server's Node and Namespace conversions leave it out).
	NoNamespaceField bool
	// NameRule selects the validation applied to metadata.name.
	NameRule NameRule
	// CustomSchema is a custom resource's structural schema (its CRD
	// version's openAPIV3Schema), which prunes and type-checks its
	// objects (internal/validation); nil checks metadata alone.
	CustomSchema *openapi.Schema
	// OpenAPISchema is a custom resource's openAPIV3Schema as its CRD
	// declares it (JSON), which /openapi/v3 and /openapi/v2 publish.
	OpenAPISchema []byte
	// Structural is the same schema with every keyword the server
	// enforces (defaults, value validations, list types), nil for none.
	Structural *structural.Schema
	// CustomRules runs the schema's x-kubernetes-validations (internal/cel)
	// on a custom resource's members (old: the stored object's on update);
	// nil when the schema has none.
	CustomRules RuleChecker
	// DeprecationWarning is sent as a Warning header with every request
	// to the resource (a CRD version marked deprecated).
	DeprecationWarning string
	// NoWatchCache marks resources the real server serves straight from
	// etcd (core events): compaction is visible at once.
	NoWatchCache bool
	// Custom marks resources served from a CustomResourceDefinition: list
	// items carry kind and apiVersion, the last page has "continue": "",
	// and an update needs metadata.resourceVersion.
	Custom bool
	// DeleteReturnsObject makes an immediate delete answer with the object
	// instead of a Success Status.
	DeleteReturnsObject bool
	// PrinterColumns are a custom resource's additionalPrinterColumns
	// (its Table columns after Name).
	PrinterColumns []tbl.PrinterColumn
	// SharedStorage, when set, is the StorageKey of another group's
	// resource whose storage this one serves (events.k8s.io's Events are
	// the core Events): objects written through either are read,
	// listed and watched through both, with one resourceVersion sequence.
	SharedStorage string
}

// RuleChecker checks an object's top-level members (all but kind,
// apiVersion and metadata) against validation rules, with id the
// apiVersion, kind and metadata members rules at the root read; old holds
// the stored object's members on update and is nil on create.
type RuleChecker interface {
	Check(id, rest, old []jsonv.Member) []apistatus.FieldError
}

// Subresource is one entry of a resource's subresources in discovery.
type Subresource struct {
	Name           string
	Group, Version string // of the subresource's kind, when it differs
	Kind           string
	Verbs          []string
}

// NameRule is how metadata.name is validated.
type NameRule uint8

// The name rules the real server uses.
const (
	// NameSubdomain: an RFC 1123 subdomain (most resources).
	NameSubdomain NameRule = iota
	// NameLabel: an RFC 1123 label (namespaces).
	NameLabel
	// NameDNS1035: an RFC 1035 label, starting with a letter (services).
	NameDNS1035
	// NamePathSegment: anything that fits in a URL path segment (CRDs'
	// custom resources and a few others).
	NamePathSegment
	// NameIPAddress: an IP address in canonical form (IPAddresses),
	// checked by the kind's validator rather than with the metadata.
	NameIPAddress
	// NameByKind: a rule that depends on the object's other fields (a
	// ClusterTrustBundle's name starts with its signer's), checked by
	// the kind's validator rather than with the metadata.
	NameByKind
)

// GroupVersion returns "v1" for the core group and "group/version" otherwise.
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource returns "resource" or "resource.group", as the server
// names a resource in messages.
func (r *Resource) GroupResource() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// GR names the resource in Status messages and details.
func (r *Resource) GR() apistatus.GroupResource {
	return apistatus.GroupResource{Group: r.Group, Resource: r.Name}
}

// groupKind returns "Kind" or "Kind.group", as the server names a kind in
// Invalid messages.
func (r *Resource) groupKind() string {
	if r.Group == "" {
		return r.Kind
	}
	return r.Kind + "." + r.Group
}

// AllVerbs are the verbs of an ordinary stored resource.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// StorageKey identifies the storage shared by all versions of a resource
// (and by a resource of another group that serves it: SharedStorage).
func (r *Resource) StorageKey() string {
	if r.SharedStorage != "" {
		return r.SharedStorage
	}
	return r.Group + "/" + r.Name
}

// HasSubresource reports whether the resource serves the subresource
// name ("status", "scale").
func (r *Resource) HasSubresource(name string) bool {
	return slices.ContainsFunc(r.Subresources, func(s Subresource) bool { return s.Name == name })
}

// HasStatus reports whether the resource has a status subresource (so a
// write to the main resource leaves status alone).
func (r *Resource) HasStatus() bool {
	return slices.ContainsFunc(r.Subresources, func(s Subresource) bool { return s.Name == "status" })
}

// IsVirtual reports a create-only resource, which stores nothing (the
// access and rules reviews, bindings).
func (r *Resource) IsVirtual() bool {
	return slices.Equal(r.Verbs, []string{"create"})
}

// HasVerb reports whether the resource serves the verb v.
func (r *Resource) HasVerb(v string) bool { return slices.Contains(r.Verbs, v) }

// FieldAllowed reports whether a field selector may name field.
func (r *Resource) FieldAllowed(field string) bool {
	switch field {
	case "metadata.name":
		return true
	case "metadata.namespace":
		return !r.NoNamespaceField
	}
	return slices.Contains(r.Fields, field)
}

// FieldErrorMessage is the 400 message for a field selector naming field.
func (r *Resource) FieldErrorMessage(field string) string {
	if r.FieldError != nil {
		return r.FieldError(field)
	}
	if len(r.Fields) > 0 || r.NoNamespaceField {
		return "field label not supported: " + field
	}
	return fmt.Sprintf("%q is not a known field selector: only %q, %q", field, "metadata.name", "metadata.namespace")
}

// Registry holds every served resource, by group/version/resource, and the
// order groups and versions appear in discovery.
type Registry struct {
	// mu guards every field below.
	mu    sync.RWMutex
	byGVR map[string]*Resource
	// gen counts changes, so caches (OpenAPI) know when to rebuild.
	gen uint64
	// groups in discovery order; versions within a group in preference
	// order; resources within a version in the order they were added.
	groups []*APIGroup
}

// APIGroup is one group as discovery lists it.
type APIGroup struct {
	Name     string
	Versions []*APIVersion
}

// APIVersion is one version of a group and the resources it serves.
type APIVersion struct {
	Version   string
	Resources []*Resource
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{byGVR: map[string]*Resource{}}
}

// NewBuiltin returns a registry holding the built-in resources (Builtin),
// each with its list kind and behaviour (applyBehaviour).
func NewBuiltin() *Registry {
	g := New()
	for i := range Builtin {
		r := Builtin[i]
		r.ListKind = r.Kind + "List"
		applyBehaviour(&r)
		g.Add(&r)
	}
	return g
}

func gvrKey(group, version, resource string) string {
	return group + "/" + version + "/" + resource
}

// Add registers r, replacing any resource with the same group, version
// and name.
func (g *Registry) Add(r *Resource) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.addLocked(r)
}

func (g *Registry) addLocked(r *Resource) {
	g.gen++
	key := gvrKey(r.Group, r.Version, r.Name)
	if _, ok := g.byGVR[key]; ok {
		g.removeLocked(r.Group, r.Version, r.Name)
	}
	g.byGVR[key] = r
	var grp *APIGroup
	for _, x := range g.groups {
		if x.Name == r.Group {
			grp = x
		}
	}
	if grp == nil {
		grp = &APIGroup{Name: r.Group}
		g.groups = append(g.groups, grp)
	}
	var ver *APIVersion
	for _, x := range grp.Versions {
		if x.Version == r.Version {
			ver = x
		}
	}
	if ver == nil {
		ver = &APIVersion{Version: r.Version}
		grp.Versions = append(grp.Versions, ver)
	}
	ver.Resources = append(ver.Resources, r)
}

// Remove unregisters one resource version and drops empty versions and
// groups.
func (g *Registry) Remove(group, version, resource string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(group, version, resource)
}

func (g *Registry) removeLocked(group, version, resource string) {
	g.gen++
	delete(g.byGVR, gvrKey(group, version, resource))
	for gi, grp := range g.groups {
		if grp.Name != group {
			continue
		}
		for vi, ver := range grp.Versions {
			if ver.Version != version {
				continue
			}
			ver.Resources = slices.DeleteFunc(ver.Resources, func(r *Resource) bool { return r.Name == resource })
			if len(ver.Resources) == 0 {
				grp.Versions = slices.Delete(grp.Versions, vi, vi+1)
			}
			break
		}
		if len(grp.Versions) == 0 {
			g.groups = slices.Delete(g.groups, gi, gi+1)
		}
		return
	}
}

// Generation returns a number that changes whenever a resource is added
// or removed.
func (g *Registry) Generation() uint64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.gen
}

// Lookup finds a resource by group, version and plural name.
func (g *Registry) Lookup(group, version, resource string) *Resource {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.byGVR[gvrKey(group, version, resource)]
}

// HasGroupVersion reports whether anything is served under group/version.
func (g *Registry) HasGroupVersion(group, version string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, grp := range g.groups {
		if grp.Name == group {
			for _, v := range grp.Versions {
				if v.Version == version {
					return true
				}
			}
		}
	}
	return false
}

// Snapshot returns a copy of the group list for discovery, safe to read
// without the lock.
func (g *Registry) Snapshot() []APIGroup {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]APIGroup, 0, len(g.groups))
	for _, grp := range g.groups {
		c := APIGroup{Name: grp.Name}
		for _, v := range grp.Versions {
			c.Versions = append(c.Versions, &APIVersion{Version: v.Version, Resources: slices.Clone(v.Resources)})
		}
		out = append(out, c)
	}
	return out
}

// ByKind finds the resource serving kind in group (any version), for
// loading manifests.
func (g *Registry) ByKind(apiVersion, kind string) *Resource {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, grp := range g.groups {
		if grp.Name != group {
			continue
		}
		for _, v := range grp.Versions {
			if v.Version != version {
				continue
			}
			for _, r := range v.Resources {
				if r.Kind == kind {
					return r
				}
			}
		}
	}
	return nil
}
