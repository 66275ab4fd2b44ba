package cel

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// semverType is the Kubernetes CEL type of a semantic version.
var semverType = cel.ObjectType("kubernetes.Semver")

// semverVal is a semantic version (semver.org 2.0): three numbers, the
// pre-release identifiers and the build metadata, which comparisons
// ignore.
type semverVal struct {
	major, minor, patch uint64
	pre                 []string
	build               []string
}

func (v semverVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, nativeConversionError("Semver")
}

func (v semverVal) ConvertToType(t ref.Type) ref.Val { return convertObjectValue(v, semverType, t) }

func (v semverVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(semverVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.compare(o) == 0)
}

func (v semverVal) Type() ref.Type { return semverType }
func (v semverVal) Value() any     { return v }

// compare orders versions by their numbers, then a release above its
// pre-releases, then the pre-release identifiers one by one (numeric
// ones numerically and below alphanumeric ones, which compare as text;
// more identifiers rank higher when the shared ones are equal).
func (v semverVal) compare(o semverVal) int {
	if c := cmp.Compare(v.major, o.major); c != 0 {
		return c
	}
	if c := cmp.Compare(v.minor, o.minor); c != 0 {
		return c
	}
	if c := cmp.Compare(v.patch, o.patch); c != 0 {
		return c
	}
	switch {
	case len(v.pre) == 0 && len(o.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(o.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(o.pre); i++ {
		if c := comparePre(v.pre[i], o.pre[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(v.pre), len(o.pre))
}

func comparePre(a, b string) int {
	an, aNum := onlyDigits(a)
	bn, bNum := onlyDigits(b)
	switch {
	case aNum && bNum:
		return cmp.Compare(an, bn)
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return strings.Compare(a, b)
}

// onlyDigits returns the number s spells when it is all digits.
func onlyDigits(s string) (uint64, bool) {
	if strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

const alphanumerics = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-"

// versionNumber reads one of the three numbers; which names it in the
// real parser's errors.
func versionNumber(s, which string) (uint64, error) {
	if strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("Invalid character(s) found in %s number %q", which, s)
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("%s number must not contain leading zeroes %q", strings.ToUpper(which[:1])+which[1:], s)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// parseSemver reads a strict semantic version, with the real library's
// error wording.
func parseSemver(s string) (semverVal, error) {
	var v semverVal
	if s == "" {
		return v, errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return v, errors.New("No Major.Minor.Patch elements found")
	}
	var err error
	if v.major, err = versionNumber(parts[0], "major"); err != nil {
		return v, err
	}
	if v.minor, err = versionNumber(parts[1], "minor"); err != nil {
		return v, err
	}
	patch, build, hasBuild := strings.Cut(parts[2], "+")
	patch, pre, hasPre := strings.Cut(patch, "-")
	if v.patch, err = versionNumber(patch, "patch"); err != nil {
		return v, err
	}
	if hasPre {
		for p := range strings.SplitSeq(pre, ".") {
			switch _, num := onlyDigits(p); {
			case p == "":
				return v, errors.New("Prerelease is empty")
			case num && len(p) > 1 && p[0] == '0':
				return v, fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", p)
			case !num && strings.Trim(p, alphanumerics) != "":
				return v, fmt.Errorf("Invalid character(s) found in prerelease %q", p)
			}
			v.pre = append(v.pre, p)
		}
	}
	if hasBuild {
		for b := range strings.SplitSeq(build, ".") {
			if b == "" {
				return v, errors.New("Build meta data is empty")
			}
			if strings.Trim(b, alphanumerics) != "" {
				return v, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
			}
			v.build = append(v.build, b)
		}
	}
	return v, nil
}

// normalizeSemver is the tolerant reading semver(s, true) does: a leading
// "v" dropped, leading zeros removed, a missing minor or patch number
// taken as 0.
func normalizeSemver(s string) (semverVal, error) {
	parts := strings.SplitN(strings.TrimPrefix(s, "v"), ".", 3)
	for i, p := range parts {
		if len(p) > 1 {
			p = strings.TrimLeft(p, "0")
			if p == "" || p[0] < '0' || p[0] > '9' {
				p = "0" + p
			}
			parts[i] = p
		}
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return semverVal{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return parseSemver(strings.Join(parts, "."))
}

// semverFrom binds semver() and isSemver(), with and without the
// normalize argument; to builds the result from the parsed version.
func semverFrom(to func(semverVal, error) ref.Val) (unary, binary cel.OverloadOpt) {
	unary = cel.UnaryBinding(func(arg ref.Val) ref.Val {
		s, ok := arg.(types.String)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return to(parseSemver(string(s)))
	})
	binary = cel.BinaryBinding(func(arg, norm ref.Val) ref.Val {
		s, ok1 := arg.(types.String)
		n, ok2 := norm.(types.Bool)
		if !ok1 || !ok2 {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		if n {
			return to(normalizeSemver(string(s)))
		}
		return to(parseSemver(string(s)))
	})
	return unary, binary
}

// onSemvers binds a comparison of two versions.
func onSemvers(f func(c int) ref.Val) cel.OverloadOpt {
	return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
		x, ok1 := a.(semverVal)
		y, ok2 := b.(semverVal)
		if !ok1 || !ok2 {
			return types.MaybeNoSuchOverloadErr(b)
		}
		return f(x.compare(y))
	})
}

// semverLibrary declares the Kubernetes semver library (its version 1,
// with the normalize argument): semver() and isSemver() on strings;
// major, minor, patch, compareTo, isGreaterThan and isLessThan on
// versions.
func semverLibrary() []cel.EnvOption {
	v, str, b := semverType, cel.StringType, cel.BoolType
	toVal, toVal2 := semverFrom(func(sv semverVal, err error) ref.Val {
		if err != nil {
			return types.NewErr("%v", err)
		}
		return sv
	})
	isVal, isVal2 := semverFrom(func(_ semverVal, err error) ref.Val { return types.Bool(err == nil) })
	part := func(name, id string, f func(semverVal) uint64) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{v}, cel.IntType, cel.UnaryBinding(func(arg ref.Val) ref.Val {
			sv, ok := arg.(semverVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(arg)
			}
			return types.Int(f(sv))
		})))
	}
	return []cel.EnvOption{
		cel.Function("semver",
			cel.Overload("string_to_semver", []*cel.Type{str}, v, toVal),
			cel.Overload("string_bool_to_semver", []*cel.Type{str, b}, v, toVal2)),
		cel.Function("isSemver",
			cel.Overload("is_semver_string", []*cel.Type{str}, b, isVal),
			cel.Overload("is_semver_string_bool", []*cel.Type{str, b}, b, isVal2)),
		cel.Function("isGreaterThan", cel.MemberOverload("semver_is_greater_than", []*cel.Type{v, v}, b, onSemvers(func(c int) ref.Val { return types.Bool(c > 0) }))),
		cel.Function("isLessThan", cel.MemberOverload("semver_is_less_than", []*cel.Type{v, v}, b, onSemvers(func(c int) ref.Val { return types.Bool(c < 0) }))),
		cel.Function("compareTo", cel.MemberOverload("semver_compare_to", []*cel.Type{v, v}, cel.IntType, onSemvers(func(c int) ref.Val { return types.Int(c) }))),
		part("major", "semver_major", func(sv semverVal) uint64 { return sv.major }),
		part("minor", "semver_minor", func(sv semverVal) uint64 { return sv.minor }),
		part("patch", "semver_patch", func(sv semverVal) uint64 { return sv.patch }),
	}
}
