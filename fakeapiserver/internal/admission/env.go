package admission

import (
	"fmt"
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	kcel "github.com/kubecache/kubecache/fakeapiserver/internal/cel"
)

// Cost limits of the real server's admission CEL: one expression, all
// the expressions of one binding, and a policy's match conditions.
const (
	perCallLimit        = 1_000_000
	runtimeBudget       = 10_000_000
	matchConditionLimit = 2_500_000
	// maxMessageBytes is the longest evaluated messageExpression shown.
	maxMessageBytes = 5 * 1024
	// maxAnnotationValue is where an audit annotation value is cut.
	maxAnnotationValue = 10 * 1024
)

// varsTypeName is the CEL type of the variables object.
const varsTypeName = "kubernetes.variables"

// envSpec says which optional variables an environment declares.
type envSpec struct {
	params     bool
	authorizer bool
	// variables declares the variables object (only policies with
	// variables have it).
	variables bool
	// patchTypes declares Object and JSONPatch (mutations).
	patchTypes bool
}

// varTypes declares a policy's variables (in order: each sees the ones
// before it) as fields of one struct type.
type varTypes struct {
	*kcel.ObjectTypes
	names  []string
	fields map[string]*types.Type
	// patch declares the mutation types too.
	patch bool
}

func newVarTypes() *varTypes {
	ot := kcel.NewObjectTypes()
	declareRequest(ot)
	declareNamespace(ot)
	return &varTypes{ObjectTypes: ot, fields: map[string]*types.Type{}}
}

// requestTypeName is the CEL type of the request variable.
const requestTypeName = "kubernetes.AdmissionRequest"

// declareRequest declares the request variable's type as the real server
// does: the AdmissionRequest fields an expression may read (no uid), so
// that one it does not have fails to compile.
func declareRequest(ot *kcel.ObjectTypes) {
	str, list := types.StringType, types.NewListType(types.StringType)
	gvk := ot.Object("kubernetes.GroupVersionKind", kcel.Field{Name: "group", Type: str}, kcel.Field{Name: "version", Type: str}, kcel.Field{Name: "kind", Type: str})
	gvr := ot.Object("kubernetes.GroupVersionResource", kcel.Field{Name: "group", Type: str}, kcel.Field{Name: "version", Type: str}, kcel.Field{Name: "resource", Type: str})
	user := ot.Object("kubernetes.UserInfo", kcel.Field{Name: "username", Type: str}, kcel.Field{Name: "uid", Type: str},
		kcel.Field{Name: "groups", Type: list}, kcel.Field{Name: "extra", Type: types.NewMapType(str, list)})
	ot.Object(requestTypeName,
		kcel.Field{Name: "kind", Type: gvk}, kcel.Field{Name: "resource", Type: gvr}, kcel.Field{Name: "subResource", Type: str},
		kcel.Field{Name: "requestKind", Type: gvk}, kcel.Field{Name: "requestResource", Type: gvr}, kcel.Field{Name: "requestSubResource", Type: str},
		kcel.Field{Name: "name", Type: str}, kcel.Field{Name: "namespace", Type: str}, kcel.Field{Name: "operation", Type: str},
		kcel.Field{Name: "userInfo", Type: user}, kcel.Field{Name: "dryRun", Type: types.BoolType}, kcel.Field{Name: "options", Type: types.DynType})
}

func (v *varTypes) add(name string, t *types.Type) {
	if t == nil {
		t = types.DynType
	}
	if _, ok := v.fields[name]; !ok {
		v.names = append(v.names, name)
	}
	v.fields[name] = t
}

// FindStructType implements types.Provider.
func (v *varTypes) FindStructType(name string) (*types.Type, bool) {
	if t, ok := patchStructType(name); ok && v.patch {
		return t, true
	}
	if name == varsTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(varsTypeName)), true
	}
	return v.ObjectTypes.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (v *varTypes) FindStructFieldNames(name string) ([]string, bool) {
	if name == varsTypeName {
		return slices.Clone(v.names), true
	}
	return v.ObjectTypes.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider: a variable is
// evaluated the first time an expression reads it.
func (v *varTypes) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if ft, ok := patchFieldType(name, field); ok && v.patch {
		return ft, true
	}
	if name != varsTypeName {
		return v.ObjectTypes.FindStructFieldType(name, field)
	}
	t, ok := v.fields[field]
	if !ok {
		return nil, false
	}
	return &types.FieldType{
		Type:  t,
		IsSet: func(obj any) bool { return true },
		GetFrom: func(obj any) (any, error) {
			switch lv := obj.(type) {
			case varsVal:
				return lv.l.get(field), nil
			case *lazyVars:
				return lv.get(field), nil
			}
			return nil, fmt.Errorf("no such key: %s", field)
		},
	}, true
}

// NewValue implements types.Provider.
func (v *varTypes) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if v.patch && (isObjectType(name) || name == jsonPatchTypeName) {
		return newObjectVal(name, fields)
	}
	if name == varsTypeName {
		return types.NewErr("cannot create %s", name)
	}
	return v.ObjectTypes.NewValue(name, fields)
}

// newEnv builds the environment of a policy's expressions.
func newEnv(vt *varTypes, spec envSpec) (*cel.Env, error) {
	if spec.patchTypes {
		pv := *vt
		pv.patch = true
		vt = &pv
	}
	opts := []cel.EnvOption{
		cel.CustomTypeProvider(vt),
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("namespaceObject", types.NewObjectType(namespaceTypeName)),
		cel.Variable("request", types.NewObjectType(requestTypeName)),
	}
	if spec.variables {
		opts = append(opts, cel.Variable("variables", types.NewObjectType(varsTypeName)))
	}
	if spec.params {
		opts = append(opts, cel.Variable("params", cel.DynType))
	}
	if spec.authorizer {
		opts = append(opts, authorizerOptions()...)
	}
	if spec.patchTypes {
		opts = append(opts, patchTypeOptions()...)
	}
	return cel.NewEnv(append(opts, kcel.Libraries()...)...)
}

// program is one compiled expression, or why it did not compile.
type program struct {
	expr string
	prog cel.Program
	err  string
}

// compileExpr compiles expr in env; want lists the output types
// accepted (the real server's wording when the type is another).
func compileExpr(env *cel.Env, expr string, want ...*cel.Type) (program, *cel.Type) {
	p := program{expr: expr}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		p.err = "compilation failed: " + iss.String()
		return p, nil
	}
	out := ast.OutputType()
	ok := len(want) == 0
	for _, t := range want {
		if out.IsExactType(t) || cel.AnyType.IsExactType(t) {
			ok = true
		}
	}
	if !ok {
		if len(want) == 1 {
			p.err = fmt.Sprintf("must evaluate to %v but got %v", want[0].String(), out.String())
		} else {
			p.err = fmt.Sprintf("must evaluate to one of %v but got %v", want, out.String())
		}
		return p, nil
	}
	prog, err := env.Program(ast, cel.CostLimit(perCallLimit), cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		p.err = "program instantiation failed: " + err.Error()
		return p, nil
	}
	p.prog = prog
	return p, out
}
