package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// kubernetesLibrary declares the Kubernetes CEL functions rules call most
// beyond cel-go's extensions, with the semantics of Kubernetes' own
// library: on lists isSorted, sum, min, max, indexOf and lastIndexOf; on
// strings find and findAll (the first and every match of a regular
// expression).
func kubernetesLibrary() cel.EnvOption {
	t := cel.TypeParamType("T")
	listT := cel.ListType(t)
	return cel.Lib(library{
		opts: []cel.EnvOption{
			cel.Function("isSorted", cel.MemberOverload("list_is_sorted", []*cel.Type{listT}, cel.BoolType, cel.UnaryBinding(isSorted))),
			cel.Function("sum",
				cel.MemberOverload("list_int_sum", []*cel.Type{cel.ListType(cel.IntType)}, cel.IntType, cel.UnaryBinding(sum(types.Int(0)))),
				cel.MemberOverload("list_double_sum", []*cel.Type{cel.ListType(cel.DoubleType)}, cel.DoubleType, cel.UnaryBinding(sum(types.Double(0))))),
			cel.Function("min", cel.MemberOverload("list_min", []*cel.Type{listT}, t, cel.UnaryBinding(extreme(-1)))),
			cel.Function("max", cel.MemberOverload("list_max", []*cel.Type{listT}, t, cel.UnaryBinding(extreme(1)))),
			cel.Function("indexOf", cel.MemberOverload("list_index_of", []*cel.Type{listT, t}, cel.IntType, cel.BinaryBinding(indexOf(false)))),
			cel.Function("lastIndexOf", cel.MemberOverload("list_last_index_of", []*cel.Type{listT, t}, cel.IntType, cel.BinaryBinding(indexOf(true)))),
			cel.Function("find", cel.MemberOverload("string_find", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType, cel.BinaryBinding(find))),
			cel.Function("findAll",
				cel.MemberOverload("string_find_all", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType), cel.BinaryBinding(findAll(-1))),
				cel.MemberOverload("string_find_all_n", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
					cel.FunctionBinding(func(args ...ref.Val) ref.Val {
						n, ok := args[2].(types.Int)
						if !ok {
							return types.MaybeNoSuchOverloadErr(args[2])
						}
						return findAll(int(n))(args[0], args[1])
					}))),
		},
	})
}

type library struct{ opts []cel.EnvOption }

func (l library) CompileOptions() []cel.EnvOption     { return l.opts }
func (l library) ProgramOptions() []cel.ProgramOption { return nil }

func items(v ref.Val) (traits.Lister, int, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, 0, types.MaybeNoSuchOverloadErr(v)
	}
	n, ok := l.Size().(types.Int)
	if !ok {
		return nil, 0, types.NewErr("list size")
	}
	return l, int(n), nil
}

func compare(a, b ref.Val) (int, ref.Val) {
	c, ok := a.(traits.Comparer)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(a)
	}
	r, ok := c.Compare(b).(types.Int)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(b)
	}
	return int(r), nil
}

func isSorted(v ref.Val) ref.Val {
	l, n, bad := items(v)
	if bad != nil {
		return bad
	}
	for i := 1; i < n; i++ {
		c, bad := compare(l.Get(types.Int(i-1)), l.Get(types.Int(i)))
		if bad != nil {
			return bad
		}
		if c > 0 {
			return types.False
		}
	}
	return types.True
}

func sum(zero ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		l, n, bad := items(v)
		if bad != nil {
			return bad
		}
		acc := zero
		for i := range n {
			a, ok := acc.(traits.Adder)
			if !ok {
				return types.MaybeNoSuchOverloadErr(acc)
			}
			acc = a.Add(l.Get(types.Int(i)))
			if types.IsError(acc) {
				return acc
			}
		}
		return acc
	}
}

// extreme returns the least (sign -1) or greatest (sign 1) item; an
// empty list is the real library's error.
func extreme(sign int) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		l, n, bad := items(v)
		if bad != nil {
			return bad
		}
		if n == 0 {
			if sign < 0 {
				return types.NewErr("min called on empty list")
			}
			return types.NewErr("max called on empty list")
		}
		best := l.Get(types.Int(0))
		for i := 1; i < n; i++ {
			x := l.Get(types.Int(i))
			c, bad := compare(x, best)
			if bad != nil {
				return bad
			}
			if c*sign > 0 {
				best = x
			}
		}
		return best
	}
}

func indexOf(last bool) func(ref.Val, ref.Val) ref.Val {
	return func(v, x ref.Val) ref.Val {
		l, n, bad := items(v)
		if bad != nil {
			return bad
		}
		found := -1
		for i := range n {
			if l.Get(types.Int(i)).Equal(x) == types.True {
				found = i
				if !last {
					break
				}
			}
		}
		return types.Int(found)
	}
}

// regexArgs reads a string and a regular expression argument.
func regexArgs(s, pattern ref.Val) (string, *regexp.Regexp, ref.Val) {
	str, ok1 := s.(types.String)
	pat, ok2 := pattern.(types.String)
	if !ok1 || !ok2 {
		return "", nil, types.MaybeNoSuchOverloadErr(pattern)
	}
	re, err := regexp.Compile(string(pat))
	if err != nil {
		return "", nil, types.WrapErr(err)
	}
	return string(str), re, nil
}

func find(s, pattern ref.Val) ref.Val {
	str, re, bad := regexArgs(s, pattern)
	if bad != nil {
		return bad
	}
	return types.String(re.FindString(str))
}

func findAll(limit int) func(ref.Val, ref.Val) ref.Val {
	return func(s, pattern ref.Val) ref.Val {
		str, re, bad := regexArgs(s, pattern)
		if bad != nil {
			return bad
		}
		return types.DefaultTypeAdapter.NativeToValue(re.FindAllString(str, limit))
	}
}
