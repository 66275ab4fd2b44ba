package structural

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// Default sets the defaults of absent fields in v, in place, as the real
// server does on create and update: an object's declared properties that
// are missing get their default (a copy), and the walk then goes on into
// every member, item and map value, so a defaulted object gets its own
// fields' defaults too. Fields a schema does not declare (beyond
// x-kubernetes-preserve-unknown-fields) get nothing.
func Default(v *jsonv.Value, s *Schema) {
	if s == nil || v == nil {
		return
	}
	switch v.Kind {
	case jsonv.Object:
		for _, name := range s.propertyNames {
			if c := s.Properties[name]; c.Default != nil && v.Get(name) == nil {
				v.Set(name, c.Default.Clone())
			}
		}
		for i := range v.Obj {
			Default(&v.Obj[i].Value, s.child(v.Obj[i].Key))
		}
	case jsonv.Array:
		for i := range v.Arr {
			Default(&v.Arr[i], s.Items)
		}
	}
}

// DefaultMembers applies Default to an object's top-level members (all
// but kind, apiVersion and metadata) and returns them.
func DefaultMembers(rest []jsonv.Member, s *Schema) []jsonv.Member {
	v := jsonv.Value{Kind: jsonv.Object, Obj: rest}
	Default(&v, s)
	return v.Obj
}
