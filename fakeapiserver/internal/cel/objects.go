package cel

import (
	"github.com/google/cel-go/common/types"
)

// ObjectTypes declares object types without a schema, for the variables
// the real server types by hand (an admission request): each field has
// a CEL type and is read from a JSON object (a map[string]any) at run
// time, as a schema's objects are. It is a types.Provider for
// cel.CustomTypeProvider; it is not safe for concurrent declaration.
type ObjectTypes struct {
	*provider
}

// Field is one field of an object type.
type Field struct {
	Name string
	Type *types.Type
}

// NewObjectTypes returns an empty set of object types.
func NewObjectTypes() *ObjectTypes { return &ObjectTypes{provider: newProvider()} }

// Object declares (or declares again) the object type name with fields,
// in their order, and returns its CEL type.
func (o *ObjectTypes) Object(name string, fields ...Field) *types.Type {
	st := &structType{typ: types.NewObjectType(name), fields: make(map[string]*types.Type, len(fields))}
	for _, f := range fields {
		st.fields[f.Name] = f.Type
		st.names = append(st.names, f.Name)
	}
	o.structs[name] = st
	return st.typ
}
