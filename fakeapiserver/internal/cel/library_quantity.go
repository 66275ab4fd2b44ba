package cel

import (
	"cmp"
	"math/big"
	"math/bits"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// quantityType is the Kubernetes CEL type of a resource quantity.
var quantityType = cel.ObjectType("kubernetes.Quantity")

// quantityVal is a resource quantity as rules see it: its exact value.
// Two quantities are equal when their values are ("1" and "1000m").
// Like the real server's, most quantities are also held as an integer
// amount times a power of ten ("1500m" is 1500e-3): small says so, and
// whether a quantity is an integer depends on it, not only on its value
// (the real answer for "2000m" is no, as for any negative scale).
type quantityVal struct {
	v      *big.Rat
	small  bool
	amount int64
	scale  int
}

// parseQuantityVal reads s as the real parser: the exact value, and the
// integer amount when it has at most 18 digits (binary suffixes: fewer
// the larger the suffix) and a scale of at least -9.
func parseQuantityVal(s string) (quantityVal, error) {
	v, err := quantityValue(s)
	if err != nil {
		return quantityVal{}, err
	}
	q := quantityVal{v: v}
	neg := strings.HasPrefix(s, "-")
	num, suffix := strings.TrimLeft(s, "+-"), ""
	if i := strings.IndexAny(num, "eEinumkKMGTP"); i >= 0 {
		num, suffix = num[:i], num[i:]
	}
	whole, frac, _ := strings.Cut(num, ".")
	whole = cmp.Or(strings.TrimLeft(whole, "0"), "0")
	digits, err := strconv.ParseInt(strings.TrimLeft(whole+frac, "0")+"0", 10, 64)
	if err != nil {
		return q, nil
	}
	digits /= 10
	if neg {
		digits = -digits
	}
	switch suffix {
	case "Ki", "Mi", "Gi", "Ti", "Pi", "Ei":
		exp := 10 * (strings.Index("KMGTPE", suffix[:1]) + 1)
		if frac == "" && 15-len(whole)-int(float32(exp)*3/10)-1 >= 0 && bits.Len64(uint64(max(digits, -digits)))+exp < 63 {
			q.small, q.amount = true, digits<<exp
		}
		return q, nil
	}
	exp := 0
	if suffix != "" {
		exp = int(3 * (strings.Index("num kMGTPE", suffix) - 3))
		if suffix[0] == 'e' || (suffix[0] == 'E' && len(suffix) > 1) {
			e, _ := strconv.ParseInt(suffix[1:], 10, 64)
			exp = int(int32(e))
		}
	}
	if len(whole)+len(frac) <= 18 && exp-len(frac) >= -9 {
		q.small, q.amount, q.scale = true, digits, exp-len(frac)
	}
	return q, nil
}

// asInt64 is the quantity as an integer when the real server gives one:
// an integer amount of scale zero or more that fits.
func (q quantityVal) asInt64() (int64, bool) {
	if !q.small || q.scale < 0 {
		return 0, false
	}
	if !q.v.IsInt() || !q.v.Num().IsInt64() {
		return 0, false
	}
	return q.v.Num().Int64(), true
}

// plus is q + sign×o with the real server's representation: integer
// amounts add at the smaller scale while they fit in 64 bits, anything
// else is held as a decimal.
func (q quantityVal) plus(o quantityVal, sign int64) quantityVal {
	r := quantityVal{v: new(big.Rat)}
	if sign < 0 {
		r.v.Sub(q.v, o.v)
	} else {
		r.v.Add(q.v, o.v)
	}
	if !q.small || !o.small {
		return r
	}
	switch {
	case o.amount == 0:
		r.small, r.scale = true, q.scale
	case q.amount == 0:
		r.small, r.scale = true, o.scale
	default:
		r.small, r.scale = true, min(q.scale, o.scale)
	}
	scaled := new(big.Rat).Mul(r.v, pow10(-r.scale))
	if !scaled.IsInt() || !scaled.Num().IsInt64() || !fitsAt(q, r.scale) || !fitsAt(o, r.scale) {
		return quantityVal{v: r.v}
	}
	r.amount = scaled.Num().Int64()
	return r
}

// pow10 is 10^n as a fraction.
func pow10(n int) *big.Rat {
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(n, -n))), nil))
	if n < 0 {
		return p.Inv(p)
	}
	return p
}

// fitsAt reports whether q's amount still fits in 64 bits at scale.
func fitsAt(q quantityVal, scale int) bool {
	if q.amount == 0 || q.scale <= scale {
		return true
	}
	n := new(big.Int).Mul(big.NewInt(q.amount), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(q.scale-scale)), nil))
	return n.IsInt64()
}

func (q quantityVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, nativeConversionError("Quantity")
}

func (q quantityVal) ConvertToType(t ref.Type) ref.Val { return convertObjectValue(q, quantityType, t) }

func (q quantityVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantityVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(q.v.Cmp(o.v) == 0)
}

func (q quantityVal) Type() ref.Type { return quantityType }
func (q quantityVal) Value() any     { return q }

// onQuantity binds a function of one quantity.
func onQuantity(f func(q quantityVal) ref.Val) cel.OverloadOpt {
	return cel.UnaryBinding(func(arg ref.Val) ref.Val {
		q, ok := arg.(quantityVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(q)
	})
}

// onQuantities binds a function of a quantity and a quantity or an
// integer (which add and sub take as an amount of scale zero).
func onQuantities(f func(a, b quantityVal) ref.Val) cel.OverloadOpt {
	return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
		q, ok := a.(quantityVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		switch o := b.(type) {
		case quantityVal:
			return f(q, o)
		case types.Int:
			return f(q, quantityVal{v: new(big.Rat).SetInt64(int64(o)), small: true, amount: int64(o)})
		}
		return types.MaybeNoSuchOverloadErr(b)
	})
}

// quantityLibrary declares the Kubernetes quantity library: quantity()
// and isQuantity() on strings; sign, isInteger, asInteger,
// asApproximateFloat, compareTo, isGreaterThan, isLessThan, add and sub
// on quantities.
func quantityLibrary() []cel.EnvOption {
	q, i := quantityType, cel.IntType
	compare := func(name, id string, f func(c int) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{q, q}, cel.BoolType, onQuantities(func(a, b quantityVal) ref.Val { return f(a.v.Cmp(b.v)) })))
	}
	arith := func(name, id string, sign int64) cel.EnvOption {
		bind := onQuantities(func(a, b quantityVal) ref.Val { return a.plus(b, sign) })
		return cel.Function(name,
			cel.MemberOverload(id, []*cel.Type{q, q}, q, bind),
			cel.MemberOverload(id+"_int", []*cel.Type{q, i}, q, bind))
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, q, fromString(func(s string) (ref.Val, error) {
			return parseQuantityVal(s)
		}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType, is(isQuantityString))),
		cel.Function("sign", cel.Overload("quantity_sign", []*cel.Type{q}, i, onQuantity(func(v quantityVal) ref.Val { return types.Int(v.v.Sign()) }))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer", []*cel.Type{q}, cel.BoolType, onQuantity(func(v quantityVal) ref.Val {
			_, ok := v.asInt64()
			return types.Bool(ok)
		}))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int", []*cel.Type{q}, i, onQuantity(func(v quantityVal) ref.Val {
			n, ok := v.asInt64()
			if !ok {
				return types.NewErr("cannot convert value to integer")
			}
			return types.Int(n)
		}))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float", []*cel.Type{q}, cel.DoubleType, onQuantity(func(v quantityVal) ref.Val {
			f, _ := v.v.Float64()
			return types.Double(f)
		}))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare_to", []*cel.Type{q, q}, i, onQuantities(func(a, b quantityVal) ref.Val { return types.Int(a.v.Cmp(b.v)) }))),
		compare("isGreaterThan", "quantity_is_greater_than", func(c int) ref.Val { return types.Bool(c > 0) }),
		compare("isLessThan", "quantity_is_less_than", func(c int) ref.Val { return types.Bool(c < 0) }),
		arith("add", "quantity_add", 1),
		arith("sub", "quantity_sub", -1),
	}
}
