package apply

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Request describes one write for the managedFields bookkeeping.
type Request struct {
	// Manager is the field manager (the request's fieldManager, or the
	// name the server derives from its User-Agent). Apply requires it.
	Manager string
	// APIVersion is the group/version the request used ("v1",
	// "apps/v1"); Kind is the resource's kind. Apply checks that the
	// configuration names them.
	APIVersion, Kind string
	// Subresource is "" or the subresource written ("status").
	Subresource string
	// StatusSubresource says the resource has a status subresource:
	// writes to the main resource then neither change nor own .status,
	// and writes to "status" own only .status.
	StatusSubresource bool
	// SpecReset says writes to the main resource neither own nor keep
	// .spec, which only the server sets (a CertificateSigningRequest's).
	SpecReset bool
	// Reset says the write asked to clear managedFields: its object
	// carries an empty list, or a list of one empty entry.
	Reset bool
	// Force lets an apply take fields other managers own.
	Force bool
	// Now stamps the entries of managers that changed the object.
	Now time.Time
	// Convert, when set, gives the object at another API version, so
	// that entries recorded there are compared in their own fields;
	// without it every entry is compared at APIVersion.
	Convert Converter
}

// stripped are the paths no manager owns: identity and system metadata.
var stripped = func() fieldSet {
	s := fieldSet{}
	for _, p := range [][]string{
		{"f:apiVersion"}, {"f:kind"}, {"f:metadata"},
		{"f:metadata", "f:name"}, {"f:metadata", "f:namespace"}, {"f:metadata", "f:creationTimestamp"},
		{"f:metadata", "f:selfLink"}, {"f:metadata", "f:uid"}, {"f:metadata", "f:clusterName"},
		{"f:metadata", "f:generation"}, {"f:metadata", "f:managedFields"}, {"f:metadata", "f:resourceVersion"},
	} {
		s.add(strings.Join(p, pathSep))
	}
	return s
}()

// ownable reports whether a write of r may own path p: never stripped
// paths; with a status subresource, the main resource does not own
// .status and the status subresource owns nothing else.
func (r *Request) ownable(p string) bool {
	if stripped.has(p) {
		return false
	}
	if r.SpecReset && r.Subresource == "" && (p == "f:spec" || strings.HasPrefix(p, "f:spec"+pathSep)) {
		return false
	}
	if !r.StatusSubresource && r.Subresource != "status" {
		return true
	}
	inStatus := p == "f:status" || strings.HasPrefix(p, "f:status"+pathSep)
	if r.Subresource == "status" {
		return inStatus
	}
	return !inStatus
}

// managedFieldsOf returns the raw metadata.managedFields of an object.
func managedFieldsOf(obj jsonv.Value) []byte {
	md := obj.Get("metadata")
	if md == nil {
		return nil
	}
	mf := md.Get("managedFields")
	if mf == nil || mf.Kind == jsonv.Null {
		return nil
	}
	return jsonv.Marshal(*mf)
}

// withManagedFields returns obj with metadata.managedFields replaced by
// raw (removed when raw is nil). obj is not modified.
func withManagedFields(obj jsonv.Value, raw json.RawMessage) jsonv.Value {
	if obj.Kind != jsonv.Object {
		return obj
	}
	out := jsonv.Value{Kind: jsonv.Object, Obj: append([]jsonv.Member(nil), obj.Obj...)}
	md := out.Get("metadata")
	var meta jsonv.Value
	if md != nil && md.Kind == jsonv.Object {
		meta = jsonv.Value{Kind: jsonv.Object, Obj: append([]jsonv.Member(nil), md.Obj...)}
	} else {
		meta = jsonv.NewObject()
	}
	if raw == nil {
		meta.Delete("managedFields")
	} else {
		res, err := jsonv.Parse(raw)
		if err != nil {
			// encodeManaged produces valid JSON.
			panic(err)
		}
		meta.Set("managedFields", res.Value)
	}
	if md == nil && len(meta.Obj) == 0 {
		return out
	}
	out.Set("metadata", meta)
	return out
}

// without returns obj without the top-level member key.
func without(obj jsonv.Value, key string) jsonv.Value {
	if obj.Kind != jsonv.Object || obj.Get(key) == nil {
		return obj
	}
	out := jsonv.Value{Kind: jsonv.Object, Obj: append([]jsonv.Member(nil), obj.Obj...)}
	out.Delete(key)
	return out
}

// only returns obj with just its members in keep.
func only(obj jsonv.Value, keep ...string) jsonv.Value {
	out := jsonv.NewObject()
	for _, m := range obj.Obj {
		for _, k := range keep {
			if m.Key == k {
				out.Obj = append(out.Obj, m)
			}
		}
	}
	return out
}
