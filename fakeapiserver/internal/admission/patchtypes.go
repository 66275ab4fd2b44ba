package admission

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The types of mutations: Object (and Object.spec, Object.spec.template
// … for the values inside it) built by ApplyConfiguration expressions,
// JSONPatch by JSONPatch expressions.
const (
	objectTypeName    = "Object"
	jsonPatchTypeName = "JSONPatch"
)

var jsonPatchFields = map[string]*types.Type{
	"op": types.StringType, "path": types.StringType, "from": types.StringType, "value": types.DynType,
}

// isObjectType reports Object and the names below it.
func isObjectType(name string) bool {
	return name == objectTypeName || strings.HasPrefix(name, objectTypeName+".")
}

// patchStructType answers FindStructType for the mutation types.
func patchStructType(name string) (*types.Type, bool) {
	if isObjectType(name) || name == jsonPatchTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return nil, false
}

// patchFieldType answers FindStructFieldType: an Object's fields are any
// name of any type; JSONPatch has op, path, from and value.
func patchFieldType(name, field string) (*types.FieldType, bool) {
	var t *types.Type
	switch {
	case isObjectType(name):
		t = types.DynType
	case name == jsonPatchTypeName:
		var ok bool
		if t, ok = jsonPatchFields[field]; !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	return &types.FieldType{
		Type: t,
		IsSet: func(obj any) bool {
			o, ok := obj.(*objectVal)
			if !ok {
				return false
			}
			_, set := o.fields[field]
			return set
		},
		GetFrom: func(obj any) (any, error) {
			o, ok := obj.(*objectVal)
			if !ok {
				return nil, fmt.Errorf("no such key: %s", field)
			}
			v, set := o.fields[field]
			if !set {
				return nil, fmt.Errorf("no such key: %s", field)
			}
			return v, nil
		},
	}, true
}

// objectVal is a value of Object (or one below it) or of JSONPatch.
type objectVal struct {
	typ    *types.Type
	fields map[string]ref.Val
}

func newObjectVal(name string, fields map[string]ref.Val) ref.Val {
	if name == jsonPatchTypeName {
		for k, v := range fields {
			if _, ok := jsonPatchFields[k]; !ok {
				return types.NewErr("unexpected JSONPatchType field: %s", k)
			}
			if k != "value" {
				if _, ok := v.(types.String); !ok {
					return types.NewErr("unexpected type %T for JSONPatchType '%s' field", v.Value(), k)
				}
			}
		}
	}
	return &objectVal{typ: types.NewObjectType(name), fields: fields}
}

func (o *objectVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("objects built by mutations cannot be converted")
}
func (o *objectVal) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return o.typ
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.typ.TypeName(), t.TypeName())
}
func (o *objectVal) Equal(other ref.Val) ref.Val {
	p, ok := other.(*objectVal)
	if !ok || p.typ.TypeName() != o.typ.TypeName() || len(p.fields) != len(o.fields) {
		return types.False
	}
	for k, v := range o.fields {
		w, ok := p.fields[k]
		if !ok || v.Equal(w) != types.True {
			return types.False
		}
	}
	return types.True
}
func (o *objectVal) Type() ref.Type { return o.typ }
func (o *objectVal) Value() any     { return o }

// checkTypeNames reports Object initializers whose name is not the field
// path they stand at (Object.spec{selector: Object.spec.wrong{}}).
func checkTypeNames(v ref.Val, path string) []string {
	var errs []string
	if o, ok := v.(*objectVal); ok {
		if o.typ.TypeName() != path {
			errs = append(errs, fmt.Sprintf("unexpected type name %q, expected %q, which matches field name path from root Object type", o.typ.TypeName(), path))
		}
		for _, k := range sortedKeys(o.fields) {
			errs = append(errs, checkTypeNames(o.fields[k], path+"."+k)...)
		}
		return errs
	}
	if l, ok := v.(traits.Lister); ok {
		for it := l.Iterator(); it.HasNext() == types.True; {
			errs = append(errs, checkTypeNames(it.Next(), path)...)
		}
	}
	if m, ok := v.(traits.Mapper); ok {
		for it := m.Iterator(); it.HasNext() == types.True; {
			errs = append(errs, checkTypeNames(m.Get(it.Next()), path)...)
		}
	}
	return errs
}

func sortedKeys(m map[string]ref.Val) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toJSON converts a mutation's value to a document.
func toJSON(v ref.Val) (jsonv.Value, error) {
	switch x := v.(type) {
	case *objectVal:
		out := jsonv.NewObject()
		for _, k := range sortedKeys(x.fields) {
			c, err := toJSON(x.fields[k])
			if err != nil {
				return jsonv.Value{}, err
			}
			out.Obj = append(out.Obj, jsonv.Member{Key: k, Value: c})
		}
		return out, nil
	case types.Null:
		return jsonv.Value{Kind: jsonv.Null}, nil
	case types.Bool:
		return jsonv.Value{Kind: jsonv.Bool, B: bool(x)}, nil
	case types.String:
		return jsonv.NewString(string(x)), nil
	case types.Int:
		return jsonv.Value{Kind: jsonv.Number, Str: strconv.FormatInt(int64(x), 10)}, nil
	case types.Uint:
		return jsonv.Value{Kind: jsonv.Number, Str: strconv.FormatUint(uint64(x), 10)}, nil
	case types.Double:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return jsonv.Value{}, fmt.Errorf("unsupported value: %v", f)
		}
		return jsonv.Value{Kind: jsonv.Number, Str: strconv.FormatFloat(f, 'g', -1, 64)}, nil
	case types.Bytes:
		return jsonv.NewString(base64.StdEncoding.EncodeToString([]byte(x))), nil
	case types.Timestamp:
		return jsonv.NewString(x.Time.UTC().Format(time.RFC3339)), nil
	case types.Duration:
		return jsonv.NewString(x.Duration.String()), nil
	}
	if l, ok := v.(traits.Lister); ok {
		out := jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{}}
		for it := l.Iterator(); it.HasNext() == types.True; {
			c, err := toJSON(it.Next())
			if err != nil {
				return jsonv.Value{}, err
			}
			out.Arr = append(out.Arr, c)
		}
		return out, nil
	}
	if m, ok := v.(traits.Mapper); ok {
		out := jsonv.NewObject()
		var keys []string
		vals := map[string]ref.Val{}
		for it := m.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return jsonv.Value{}, fmt.Errorf("map key of type %s", k.Type().TypeName())
			}
			keys = append(keys, string(ks))
			vals[string(ks)] = m.Get(k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, err := toJSON(vals[k])
			if err != nil {
				return jsonv.Value{}, err
			}
			out.Obj = append(out.Obj, jsonv.Member{Key: k, Value: c})
		}
		return out, nil
	}
	return jsonv.Value{}, fmt.Errorf("unsupported type %s", v.Type().TypeName())
}

// escapeKey is jsonpatch.escapeKey: a key as one JSON pointer token.
func escapeKey(v ref.Val) ref.Val {
	s, ok := v.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	return types.String(strings.ReplaceAll(strings.ReplaceAll(string(s), "~", "~0"), "/", "~1"))
}

// patchTypeOptions declares jsonpatch.escapeKey.
func patchTypeOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("jsonpatch.escapeKey", cel.Overload("string_jsonpatch_escapeKey_string", []*cel.Type{cel.StringType}, cel.StringType, cel.UnaryBinding(escapeKey))),
	}
}
