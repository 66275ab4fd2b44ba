package cel

import (
	"sync"

	celchecker "github.com/google/cel-go/checker"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
)

// deviceTypeName is the CEL type of the device a selector reads.
const deviceTypeName = "kubernetes.DRADevice"

// deviceEnv compiles device selectors (DeviceClass and ResourceClaim
// selectors) as the real server compiles a new one: a typed `device`
// with its driver, whether it allows several allocations, and its
// attributes and capacities by domain and name (an attribute of a type
// known only at run time, a capacity a quantity), and cel.bind.
var deviceEnv = sync.OnceValues(func() (*cel.Env, error) {
	p := newProvider()
	attributes := types.NewMapType(types.StringType, types.NewMapType(types.StringType, types.AnyType))
	capacity := types.NewMapType(types.StringType, types.NewMapType(types.StringType, quantityType))
	p.structs[deviceTypeName] = &structType{
		typ: types.NewObjectType(deviceTypeName),
		fields: map[string]*types.Type{
			"allowMultipleAllocations": types.BoolType, "driver": types.StringType,
			"attributes": attributes, "capacity": capacity,
		},
		names: []string{"allowMultipleAllocations", "driver", "attributes", "capacity"},
	}
	return cel.NewEnv(append([]cel.EnvOption{
		cel.CustomTypeProvider(p),
		cel.Variable("device", types.NewObjectType(deviceTypeName)),
		ext.Bindings(ext.BindingsVersion(0)),
	}, Libraries()...)...)
})

// DeviceSelectorError returns the real server's refusal of a device
// selector's expression as an invalid value ("compilation failed: …"
// for a syntax error, an unknown field of device or a type error; "must
// evaluate to bool …" for an expression of another type), or "" when it
// compiles; tooComplex reports one that compiles but whose estimated
// cost, with the sizes the real server declares for device, is over its
// limit (a Forbidden "too complex, exceeds cost limit"). An attribute's
// value has a type known only at run time, so an expression that is one
// is accepted, as on the real server.
func DeviceSelectorError(expr string) (invalid string, tooComplex bool) {
	env, err := deviceEnv()
	if err != nil {
		return "", false
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return "compilation failed: " + iss.String(), false
	}
	t := ast.OutputType()
	if !t.IsExactType(cel.BoolType) && !t.IsExactType(types.AnyType) {
		return "must evaluate to bool or the unknown type, not " + t.String(), false
	}
	est, err := env.EstimateCost(ast, sizes{fixed: devicePathSize}, celchecker.PresenceTestHasCost(false))
	return "", err == nil && est.Max > deviceSelectorCostLimit
}
