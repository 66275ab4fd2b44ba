package apply

import (
	"slices"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// Type is what server-side apply knows about the structure of one kind:
// which objects are structs (their fields are owned one by one) or maps,
// which lists are atomic, sets, or associative (items identified by key
// fields), and which values are atomic as a whole. The zero Type knows
// nothing: objects are maps whose keys are owned one by one and lists are
// atomic, as for a custom resource that keeps unknown fields.
type Type struct {
	defs *openapi.Definitions
	root *openapi.Schema
	// lenient accepts fields the schema does not declare (a custom
	// resource's server prunes them instead of failing).
	lenient bool
}

// ForKind returns the Type of a kind described by defs (for the built-in
// kinds, openapi.Builtin()), or false when defs does not declare it.
func ForKind(defs *openapi.Definitions, gvk openapi.GVK) (Type, bool) {
	_, root, ok := defs.ForKind(gvk)
	if !ok {
		return Type{}, false
	}
	return Type{defs: defs, root: root}, true
}

// ForSchema returns the Type of a custom resource whose schema is root
// (openapi.FromJSONSchema of its CRD version's openAPIV3Schema), with
// references resolved in defs (openapi.Builtin() for ObjectMeta). Fields
// the schema does not declare are accepted (the real server prunes
// them). A nil schema gives the zero Type.
func ForSchema(defs *openapi.Definitions, root *openapi.Schema) Type {
	if root == nil {
		return Type{}
	}
	return Type{defs: defs, root: root, lenient: true}
}

// shape is how apply treats one value.
type shape uint8

const (
	// leaf: a scalar, or an atomic map, struct or list: owned whole.
	leafShape shape = iota
	// fieldsShape: an object whose keys are owned one by one (a struct
	// or a granular map).
	fieldsShape
	// assocShape: a list whose items are identified by key fields.
	assocShape
	// setShape: a list of distinct primitives, each owned on its own.
	setShape
)

// node is a position in a Type: the schema of one value (nil when
// nothing is known, and the value's own JSON type decides).
type node struct {
	defs    *openapi.Definitions
	s       *openapi.Schema
	lenient bool
}

func (t Type) rootNode() node {
	return node{defs: t.defs, s: t.defs.Resolve(t.root), lenient: t.lenient}
}

// shapeOf classifies v at this node.
func (n node) shapeOf(v jsonv.Value) shape {
	s := n.s
	if s == nil || s.PreserveUnknownFields && len(s.Properties) == 0 && s.AdditionalProperties == nil {
		// Nothing known: deduce from the value.
		if v.Kind == jsonv.Object {
			return fieldsShape
		}
		return leafShape
	}
	switch {
	case s.IntOrString || len(s.OneOf) > 0:
		return leafShape
	case s.Type == "array":
		if v.Kind != jsonv.Array {
			return leafShape
		}
		switch s.ListType {
		case "map":
			return assocShape
		case "set":
			return setShape
		}
		return leafShape
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties == nil:
		// An object the schema says nothing about (a RawExtension: a
		// device's data, a ControllerRevision's) is owned whole, as
		// structured-merge-diff owns it.
		return leafShape
	case s.Type == "object" || len(s.Properties) > 0 || s.AdditionalProperties != nil:
		if v.Kind != jsonv.Object || s.MapType == "atomic" {
			return leafShape
		}
		return fieldsShape
	}
	return leafShape
}

// field returns the node of a member of an object node, and whether the
// member is a declared field of a struct (as opposed to a map key, whose
// ownership is recorded on the key itself).
func (n node) field(name string) (node, bool) {
	if n.s == nil {
		return node{defs: n.defs, lenient: n.lenient}, false
	}
	if p := n.s.Property(name); p != nil {
		return node{defs: n.defs, s: n.defs.Resolve(p), lenient: n.lenient}, true
	}
	if n.s.AdditionalProperties != nil {
		return node{defs: n.defs, s: n.defs.Resolve(n.s.AdditionalProperties), lenient: n.lenient}, false
	}
	return node{defs: n.defs, lenient: n.lenient}, false
}

// known reports whether the schema declares the member name (a field or a
// map of anything).
func (n node) known(name string) bool {
	if n.lenient || n.s == nil || n.s.PreserveUnknownFields || n.s.AdditionalProperties != nil {
		return true
	}
	return n.s.Property(name) != nil
}

// elem returns the node of a list's items.
func (n node) elem() node {
	if n.s == nil {
		return node{defs: n.defs, lenient: n.lenient}
	}
	return node{defs: n.defs, s: n.defs.Resolve(n.s.Items), lenient: n.lenient}
}

// keys returns an associative list's key fields.
func (n node) keys() []string {
	if n.s == nil {
		return nil
	}
	return n.s.ListMapKeys
}

// scalarType is the JSON Schema type of a scalar node ("" if unknown).
func (n node) scalarType() string {
	if n.s == nil || n.s.IntOrString || len(n.s.OneOf) > 0 {
		return ""
	}
	return n.s.Type
}

// materialize adds what the kind's Go type always has and the JSON may
// lack: structs that are never omitted ({}), and lists and maps that are
// never omitted (null). The server compares typed objects, so an update
// that first writes such a field does not count as adding it.
func (n node) materialize(v jsonv.Value) jsonv.Value {
	if n.s == nil || v.Kind != jsonv.Object || n.s.MapType == "atomic" {
		return v
	}
	out := jsonv.Value{Kind: jsonv.Object, Obj: make([]jsonv.Member, 0, len(v.Obj)+2)}
	for _, m := range v.Obj {
		child, _ := n.field(m.Key)
		switch child.shapeOf(m.Value) {
		case fieldsShape:
			out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: child.materialize(m.Value)})
		case assocShape:
			item := child.elem()
			arr := make([]jsonv.Value, len(m.Value.Arr))
			for i := range m.Value.Arr {
				arr[i] = item.materialize(m.Value.Arr[i])
			}
			out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: jsonv.Value{Kind: jsonv.Array, Arr: arr}})
		default:
			out.Obj = append(out.Obj, m)
		}
	}
	for _, p := range n.s.Properties {
		if out.Get(p.Name) != nil {
			continue
		}
		ps := n.defs.Resolve(p.Schema)
		if ps == nil {
			continue
		}
		switch {
		case p.Schema.DefaultEmpty:
			child := node{defs: n.defs, s: ps, lenient: n.lenient}
			out.Obj = append(out.Obj, jsonv.Member{Key: p.Name, Value: child.materialize(jsonv.NewObject())})
		case slices.Contains(n.s.Required, p.Name) && (ps.Type == "array" || ps.IsMap()):
			out.Obj = append(out.Obj, jsonv.Member{Key: p.Name, Value: jsonv.Value{Kind: jsonv.Null}})
		}
	}
	return out
}
