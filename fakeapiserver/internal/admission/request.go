package admission

import (
	"github.com/google/cel-go/common/types"

	kcel "github.com/kubecache/kubecache/fakeapiserver/internal/cel"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// toCEL is a document as expressions see it.
func toCEL(v jsonv.Value) any { return kcel.Native(v) }

// requestValue is the request variable: the real AdmissionRequest's
// fields, kind and resource at the version the policy matched, the
// request's own in requestKind and requestResource.
func requestValue(a *Attributes, at matched) any {
	extra := map[string]any{}
	for k, v := range a.User.Extra {
		extra[k] = stringsAny(v)
	}
	var options any = types.NullValue
	if a.Options != nil {
		options = toCEL(*a.Options)
	}
	return map[string]any{
		"uid":                "",
		"kind":               map[string]any{"group": a.Group, "version": at.version, "kind": at.kind},
		"resource":           map[string]any{"group": a.Group, "version": at.version, "resource": a.Resource},
		"subResource":        a.Subresource,
		"requestKind":        map[string]any{"group": a.Group, "version": a.Version, "kind": a.Kind},
		"requestResource":    map[string]any{"group": a.Group, "version": a.Version, "resource": a.Resource},
		"requestSubResource": a.Subresource,
		"name":               a.Name,
		"namespace":          a.Namespace,
		"operation":          a.Operation,
		"userInfo": map[string]any{
			"username": a.User.Name,
			"uid":      a.User.UID,
			"groups":   stringsAny(a.User.Groups),
			"extra":    extra,
		},
		"dryRun":  a.DryRun,
		"options": options,
	}
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// namespaceObject is the namespace as expressions see it: its metadata
// without managedFields and ownerReferences, its spec and status.
func namespaceObject(ns *jsonv.Value) jsonv.Value {
	out := jsonv.NewObject()
	if md := ns.Get("metadata"); md != nil && md.Kind == jsonv.Object {
		m := jsonv.NewObject()
		for _, mem := range md.Obj {
			switch mem.Key {
			case "managedFields", "ownerReferences", "selfLink":
			default:
				m.Obj = append(m.Obj, mem)
			}
		}
		out.Set("metadata", m)
	}
	for _, k := range []string{"spec", "status"} {
		if v := ns.Get(k); v != nil {
			out.Set(k, *v)
		}
	}
	return out
}
