package admission

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Attributes describe one request that admission sees, as the real
// server's admission.Attributes do.
type Attributes struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation string
	// Group, Version and Resource name the resource of the URL;
	// Subresource is "" or "status", "scale"...
	Group, Version, Resource, Subresource string
	// Kind is the kind of the object at Version.
	Kind string
	// Namespace and Name are the request's ("" for a cluster-scoped
	// resource, and Name for a create whose name is generated).
	Namespace, Name string
	// Object is the object as it would be stored (nil on DELETE);
	// OldObject the stored one (nil on CREATE).
	Object, OldObject *jsonv.Value
	// Options are the request's CreateOptions, UpdateOptions or
	// DeleteOptions as a document; nil shows as null.
	Options *jsonv.Value
	DryRun  bool
	User    User
	// Authorize answers the authorizer library's checks; nil allows
	// everything.
	Authorize Authorize
}

// User is the authenticated user of a request.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// labelsOf reads an object's metadata.labels.
func labelsOf(obj *jsonv.Value) map[string]string {
	if obj == nil {
		return nil
	}
	md := obj.Get("metadata")
	if md == nil {
		return nil
	}
	l := md.Get("labels")
	if l == nil || l.Kind != jsonv.Object {
		return map[string]string{}
	}
	out := make(map[string]string, len(l.Obj))
	for _, m := range l.Obj {
		out[m.Key] = m.Value.Str
	}
	return out
}

// nameOf is the name the real server shows in a refusal: the request's,
// else the object's name or generateName, else "Unknown".
func (a *Attributes) nameOf() string {
	if a.Name != "" {
		return a.Name
	}
	if a.Object != nil {
		if md := a.Object.Get("metadata"); md != nil {
			if n := md.Get("name"); n != nil && n.Str != "" {
				return n.Str
			}
			if n := md.Get("generateName"); n != nil && n.Str != "" {
				return n.Str
			}
		}
	}
	return "Unknown"
}
