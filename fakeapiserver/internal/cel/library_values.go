package cel

import (
	"fmt"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// What the values of the libraries' object types (Quantity, Semver,
// Format) share: none converts to a Go value, and each converts only to
// its own type and to its type's type.

// nativeConversionError is the error of converting a value of the type
// named name to a Go value.
func nativeConversionError(name string) error {
	return fmt.Errorf("type conversion error from '%s'", name)
}

// convertObjectValue is ConvertToType of v, a value of typ: v itself for
// typ, typ for type, an error for anything else.
func convertObjectValue(v ref.Val, typ *types.Type, t ref.Type) ref.Val {
	switch t {
	case typ:
		return v
	case types.TypeType:
		return typ
	}
	return types.NewErr("type conversion error from '%s' to '%s'", typ.TypeName(), t.TypeName())
}
