package cel

import (
	"net/url"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// formatType is the Kubernetes CEL type of a named string format.
var formatType = cel.ObjectType("kubernetes.NamedFormat")

// formatVal is a named format: what validate() reports about a string.
type formatVal struct {
	name     string
	problems func(string) []string
}

func (f formatVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, nativeConversionError("Format")
}

func (f formatVal) ConvertToType(t ref.Type) ref.Val { return convertObjectValue(f, formatType, t) }

func (f formatVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(formatVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(f.name == o.name)
}

func (f formatVal) Type() ref.Type { return formatType }
func (f formatVal) Value() any     { return f }

// schemaFormat is a format checked as a schema's format keyword is, with
// a fixed message when the string does not fit.
func schemaFormat(format, problem string) func(string) []string {
	return func(s string) []string {
		if structural.FormatOK(format, s) {
			return nil
		}
		return []string{problem}
	}
}

// prefixed checks a name prefix (a generateName): a trailing dash is
// allowed, the real server masking it before the name check.
func prefixed(check func(string) []string) func(string) []string {
	return func(s string) []string {
		if len(s) > 1 && strings.HasSuffix(s, "-") {
			s = s[:len(s)-2] + "a"
		}
		return check(s)
	}
}

// namedFormats are the formats format.<name>() and format.named(name)
// return, keyed by name, with the real server's names and messages.
var namedFormats = map[string]formatVal{
	"dns1123Label":           {"DNS1123Label", validation.LabelProblems},
	"dns1123Subdomain":       {"DNS1123Subdomain", validation.SubdomainProblems},
	"dns1035Label":           {"DNS1035Label", validation.DNS1035LabelProblems},
	"qualifiedName":          {"QualifiedName", validation.QualifiedNameProblems},
	"dns1123LabelPrefix":     {"DNS1123LabelPrefix", prefixed(validation.LabelProblems)},
	"dns1123SubdomainPrefix": {"DNS1123SubdomainPrefix", prefixed(validation.SubdomainProblems)},
	"dns1035LabelPrefix":     {"DNS1035LabelPrefix", prefixed(validation.DNS1035LabelProblems)},
	"labelValue":             {"LabelValue", validation.LabelValueProblems},
	"uri": {"URI", func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}},
	"uuid":     {"uuid", schemaFormat("uuid", "does not match the UUID format")},
	"byte":     {"byte", schemaFormat("byte", "invalid base64")},
	"date":     {"date", schemaFormat("date", "invalid date")},
	"datetime": {"datetime", schemaFormat("datetime", "invalid datetime")},
}

// formatLibrary declares the Kubernetes format library: format.<name>()
// for each named format, format.named(name) (an optional format), and
// <format>.validate(s), an optional list of what is wrong with s (none
// when s fits).
func formatLibrary() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.Function("format.named", cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(formatType), cel.UnaryBinding(func(arg ref.Val) ref.Val {
			s, ok := arg.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			f, ok := namedFormats[string(s)]
			if !ok {
				return types.OptionalNone
			}
			return types.OptionalOf(f)
		}))),
		cel.Function("validate", cel.MemberOverload("format-validate", []*cel.Type{formatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)),
			cel.BinaryBinding(func(a, b ref.Val) ref.Val {
				f, ok1 := a.(formatVal)
				s, ok2 := b.(types.String)
				if !ok1 || !ok2 {
					return types.MaybeNoSuchOverloadErr(b)
				}
				problems := f.problems(string(s))
				if len(problems) == 0 {
					return types.OptionalNone
				}
				return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, problems))
			}))),
	}
	for name, f := range namedFormats {
		opts = append(opts, cel.Function("format."+name, cel.Overload("format."+name, nil, formatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return f }))))
	}
	return opts
}
