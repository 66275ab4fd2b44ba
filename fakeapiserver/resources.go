package fakeapiserver

//go:generate go run ./internal/gen -in ../e2e/testdata/real/discovery -out resources_builtin.go

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"

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
	// fieldSpecs says how to read each of Fields from an object.
	fieldSpecs map[string]fieldSpec
	// FieldError formats the message for an unsupported field selector;
	// nil uses the generic one.
	FieldError func(field string) string
	// NoNamespaceField refuses metadata.namespace in field selectors (the
	// real server's Node and Namespace conversions leave it out).
	NoNamespaceField bool
	// NameRule selects the validation applied to metadata.name.
	NameRule NameRule
	// customSchema is a custom resource's structural schema (its CRD
	// version's openAPIV3Schema), which prunes and type-checks its
	// objects (validation_custom.go); nil checks metadata alone.
	customSchema *openapi.Schema
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
	// printerColumns are a custom resource's additionalPrinterColumns
	// (its Table columns after Name).
	printerColumns []tbl.PrinterColumn
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
)

// GroupVersion returns "v1" for the core group and "group/version" otherwise.
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// groupResource returns "resource" or "resource.group", as the server
// names a resource in messages.
func (r *Resource) groupResource() string {
	if r.Group == "" {
		return r.Name
	}
	return r.Name + "." + r.Group
}

// gr names the resource in Status messages and details.
func (r *Resource) gr() apistatus.GroupResource {
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

// allVerbs are the verbs of an ordinary stored resource.
var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// storageKey identifies the storage shared by all versions of a resource.
func (r *Resource) storageKey() string { return r.Group + "/" + r.Name }

func (r *Resource) hasStatus() bool {
	return slices.ContainsFunc(r.Subresources, func(s Subresource) bool { return s.Name == "status" })
}

func (r *Resource) hasVerb(v string) bool { return slices.Contains(r.Verbs, v) }

// fieldAllowed reports whether a field selector may name field.
func (r *Resource) fieldAllowed(field string) bool {
	switch field {
	case "metadata.name":
		return true
	case "metadata.namespace":
		return !r.NoNamespaceField
	}
	return slices.Contains(r.Fields, field)
}

// fieldErrorMessage is the 400 message for a field selector naming field.
func (r *Resource) fieldErrorMessage(field string) string {
	if r.FieldError != nil {
		return r.FieldError(field)
	}
	if len(r.Fields) > 0 || r.NoNamespaceField {
		return "field label not supported: " + field
	}
	return fmt.Sprintf("%q is not a known field selector: only %q, %q", field, "metadata.name", "metadata.namespace")
}

// registry holds every served resource, by group/version/resource, and the
// order groups and versions appear in discovery.
type registry struct {
	// mu guards every field below.
	mu    sync.RWMutex
	byGVR map[string]*Resource
	// gen counts changes, so caches (OpenAPI) know when to rebuild.
	gen uint64
	// groups in discovery order; versions within a group in preference
	// order; resources within a version in the order they were added.
	groups []*apiGroup
}

type apiGroup struct {
	name     string
	versions []*apiVersion
}

type apiVersion struct {
	version   string
	resources []*Resource
}

func newRegistry() *registry {
	return &registry{byGVR: map[string]*Resource{}}
}

func gvrKey(group, version, resource string) string {
	return group + "/" + version + "/" + resource
}

// add registers r, replacing any resource with the same group, version
// and name.
func (g *registry) add(r *Resource) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.addLocked(r)
}

func (g *registry) addLocked(r *Resource) {
	g.gen++
	key := gvrKey(r.Group, r.Version, r.Name)
	if _, ok := g.byGVR[key]; ok {
		g.removeLocked(r.Group, r.Version, r.Name)
	}
	g.byGVR[key] = r
	var grp *apiGroup
	for _, x := range g.groups {
		if x.name == r.Group {
			grp = x
		}
	}
	if grp == nil {
		grp = &apiGroup{name: r.Group}
		g.groups = append(g.groups, grp)
	}
	var ver *apiVersion
	for _, x := range grp.versions {
		if x.version == r.Version {
			ver = x
		}
	}
	if ver == nil {
		ver = &apiVersion{version: r.Version}
		grp.versions = append(grp.versions, ver)
	}
	ver.resources = append(ver.resources, r)
}

// remove unregisters one resource version and drops empty versions and
// groups.
func (g *registry) remove(group, version, resource string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.removeLocked(group, version, resource)
}

func (g *registry) removeLocked(group, version, resource string) {
	g.gen++
	delete(g.byGVR, gvrKey(group, version, resource))
	for gi, grp := range g.groups {
		if grp.name != group {
			continue
		}
		for vi, ver := range grp.versions {
			if ver.version != version {
				continue
			}
			ver.resources = slices.DeleteFunc(ver.resources, func(r *Resource) bool { return r.Name == resource })
			if len(ver.resources) == 0 {
				grp.versions = slices.Delete(grp.versions, vi, vi+1)
			}
			break
		}
		if len(grp.versions) == 0 {
			g.groups = slices.Delete(g.groups, gi, gi+1)
		}
		return
	}
}

// generation returns a number that changes whenever a resource is added
// or removed.
func (g *registry) generation() uint64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.gen
}

// lookup finds a resource by group, version and plural name.
func (g *registry) lookup(group, version, resource string) *Resource {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.byGVR[gvrKey(group, version, resource)]
}

// hasGroupVersion reports whether anything is served under group/version.
func (g *registry) hasGroupVersion(group, version string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, grp := range g.groups {
		if grp.name == group {
			for _, v := range grp.versions {
				if v.version == version {
					return true
				}
			}
		}
	}
	return false
}

// snapshot returns a copy of the group list for discovery, safe to read
// without the lock.
func (g *registry) snapshot() []apiGroup {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]apiGroup, 0, len(g.groups))
	for _, grp := range g.groups {
		c := apiGroup{name: grp.name}
		for _, v := range grp.versions {
			c.versions = append(c.versions, &apiVersion{version: v.version, resources: slices.Clone(v.resources)})
		}
		out = append(out, c)
	}
	return out
}

// byKind finds the resource serving kind in group (any version), for
// loading manifests.
func (g *registry) byKind(apiVersion, kind string) *Resource {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, grp := range g.groups {
		if grp.name != group {
			continue
		}
		for _, v := range grp.versions {
			if v.version != version {
				continue
			}
			for _, r := range v.resources {
				if r.Kind == kind {
					return r
				}
			}
		}
	}
	return nil
}
