package cel

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
)

// provider declares the object types of one schema to the CEL checker:
// every object node with properties is a struct type named by its path
// ("Object", "Object.spec"), whose fields read the JSON object (a Go
// map) the rule sees at run time.
type provider struct {
	// Registry answers for every type that is not the schema's, and
	// takes the types cel-go's extensions register.
	*types.Registry
	structs map[string]*structType
}

type structType struct {
	typ    *types.Type
	fields map[string]*types.Type
	names  []string
}

func newProvider() *provider {
	return &provider{Registry: types.NewEmptyRegistry(), structs: map[string]*structType{}}
}

// declType returns the CEL type of values of schema s, declaring object
// types under name.
func (p *provider) declType(s *structural.Schema, name string, depth int) *types.Type {
	if s == nil || depth > 64 || s.IntOrString || (s.PreserveUnknownFields && len(s.Properties) == 0) || s.EmbeddedResource {
		return types.DynType
	}
	switch s.Type {
	case "string":
		return types.StringType
	case "integer":
		return types.IntType
	case "number":
		return types.DoubleType
	case "boolean":
		return types.BoolType
	case "array":
		return types.NewListType(p.declType(s.Items, name+".@items", depth+1))
	case "object":
		if len(s.Properties) == 0 {
			if s.AdditionalProperties != nil {
				return types.NewMapType(types.StringType, p.declType(s.AdditionalProperties, name+".@values", depth+1))
			}
			return types.NewMapType(types.StringType, types.DynType)
		}
		st := &structType{typ: types.NewObjectType(name), fields: map[string]*types.Type{}}
		p.structs[name] = st
		for _, f := range s.PropertyNames() {
			st.fields[f] = p.declType(s.Properties[f], name+"."+f, depth+1)
			st.names = append(st.names, f)
		}
		return st.typ
	}
	return types.DynType
}

// FindStructType implements types.Provider.
func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if st, ok := p.structs[name]; ok {
		return types.NewTypeTypeWithParam(st.typ), true
	}
	return p.Registry.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	if st, ok := p.structs[name]; ok {
		return slices.Clone(st.names), true
	}
	return p.Registry.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider: a field is read from
// the JSON object by key; an absent one is the real "no such key" error.
func (p *provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	st, ok := p.structs[name]
	if !ok {
		return p.Registry.FindStructFieldType(name, field)
	}
	t, ok := st.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{
		Type: t,
		IsSet: func(obj any) bool {
			m, ok := obj.(map[string]any)
			if !ok {
				return false
			}
			_, ok = m[field]
			return ok
		},
		GetFrom: func(obj any) (any, error) {
			m, ok := obj.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("no such key: %s", field)
			}
			v, ok := m[field]
			if !ok {
				return nil, fmt.Errorf("no such key: %s", field)
			}
			return v, nil
		},
	}, true
}

// NewValue implements types.Provider: rules cannot build schema objects.
func (p *provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.structs[name]; ok {
		return types.NewErr("cannot create %s", name)
	}
	return p.Registry.NewValue(name, fields)
}

// native converts a JSON value to what a rule sees: objects as
// map[string]any, arrays as []any, integers as int64 where the schema
// says integer (or a whole number where it says nothing), numbers as
// float64.
func native(v jsonv.Value, s *structural.Schema) any {
	switch v.Kind {
	case jsonv.Null:
		return types.NullValue
	case jsonv.Bool:
		return v.B
	case jsonv.String:
		return v.Str
	case jsonv.Number:
		if s == nil || s.Type != "number" {
			if i, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
				return i
			}
		}
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f
	case jsonv.Array:
		var items *structural.Schema
		if s != nil {
			items = s.Items
		}
		out := make([]any, len(v.Arr))
		for i, e := range v.Arr {
			out[i] = native(e, items)
		}
		return out
	case jsonv.Object:
		out := make(map[string]any, len(v.Obj))
		for _, m := range v.Obj {
			out[m.Key] = native(m.Value, childOf(s, m.Key))
		}
		return out
	}
	return nil
}

func childOf(s *structural.Schema, key string) *structural.Schema {
	if s == nil {
		return nil
	}
	if c, ok := s.Properties[key]; ok {
		return c
	}
	return s.AdditionalProperties
}

// envFor builds the environment a node's rules compile in: self (and
// oldSelf) of the node's type, cel-go's standard extensions the real
// server enables, and the Kubernetes functions of library.go.
func envFor(p *provider, t, oldType *types.Type) (*cel.Env, error) {
	return cel.NewEnv(append([]cel.EnvOption{
		cel.CustomTypeProvider(p),
		cel.Variable("self", t),
		cel.Variable("oldSelf", oldType),
	}, Libraries()...)...)
}

// Libraries are the options of every Kubernetes CEL environment: the
// cel-go extensions the real server enables and the Kubernetes functions
// of library.go. Admission policies compile in them too.
func Libraries() []cel.EnvOption {
	return []cel.EnvOption{
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		cel.OptionalTypes(),
		cel.HomogeneousAggregateLiterals(),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		ext.Lists(ext.ListsVersion(3)),
		kubernetesLibrary(),
		cel.Lib(library{opts: netLibraries()}),
		cel.Lib(library{opts: quantityLibrary()}),
		cel.Lib(library{opts: semverLibrary()}),
		cel.Lib(library{opts: formatLibrary()}),
	}
}

// Native converts a JSON value to what an expression sees when no schema
// types it (an admission policy's object, oldObject and params): objects
// as maps, arrays as lists, whole numbers as integers, other numbers as
// doubles.
func Native(v jsonv.Value) any { return native(v, nil) }
