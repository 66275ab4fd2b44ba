package admission

import (
	"errors"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The authorizer library's types, named as the real server names them.
var (
	authorizerType    = cel.ObjectType("kubernetes.authorization.Authorizer")
	pathCheckType     = cel.ObjectType("kubernetes.authorization.PathCheck")
	groupCheckType    = cel.ObjectType("kubernetes.authorization.GroupCheck")
	resourceCheckType = cel.ObjectType("kubernetes.authorization.ResourceCheck")
	decisionType      = cel.ObjectType("kubernetes.authorization.Decision")
)

// Authorize decides whether user may do verb on a resource (or a
// non-resource path when path is set); reason explains a denial.
type Authorize func(user User, verb string, check AuthzCheck) (allowed bool, reason string)

// AuthzCheck is what one authorizer check asks about.
type AuthzCheck struct {
	Path                                          string
	Group, Resource, Subresource, Namespace, Name string
}

// authzVal is one value of the library: an authorizer (for a user), a
// path or group or resource check being built, or a decision.
type authzVal struct {
	typ     *types.Type
	user    User
	decide  Authorize
	check   AuthzCheck
	allowed bool
	reason  string
}

func (v *authzVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("authorizer values cannot be converted")
}
func (v *authzVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("authorizer values cannot be converted")
}
func (v *authzVal) Equal(other ref.Val) ref.Val { return types.Bool(other == ref.Val(v)) }
func (v *authzVal) Type() ref.Type              { return v.typ }
func (v *authzVal) Value() any                  { return v }

// with returns a copy of v of type t whose check edit changed.
func (v *authzVal) with(t *types.Type, edit func(c *AuthzCheck)) *authzVal {
	n := *v
	n.typ = t
	edit(&n.check)
	return &n
}

func authzArgs(a, b ref.Val) (*authzVal, string, ref.Val) {
	v, ok := a.(*authzVal)
	s, ok2 := b.(types.String)
	if !ok || !ok2 {
		return nil, "", types.MaybeNoSuchOverloadErr(b)
	}
	return v, string(s), nil
}

// setter is a binary member function that records one field of a check.
func setter(t *types.Type, set func(c *AuthzCheck, s string)) cel.OverloadOpt {
	return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
		v, s, bad := authzArgs(a, b)
		if bad != nil {
			return bad
		}
		return v.with(t, func(c *AuthzCheck) { set(c, s) })
	})
}

func decide(a, b ref.Val) ref.Val {
	v, verb, bad := authzArgs(a, b)
	if bad != nil {
		return bad
	}
	d := &authzVal{typ: decisionType, allowed: true}
	if v.decide != nil {
		d.allowed, d.reason = v.decide(v.user, verb, v.check)
	}
	return d
}

func decisionField(get func(d *authzVal) ref.Val) cel.OverloadOpt {
	return cel.UnaryBinding(func(a ref.Val) ref.Val {
		d, ok := a.(*authzVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return get(d)
	})
}

// authorizerOptions declares the authorizer and authorizer.requestResource
// variables and the library's functions.
func authorizerOptions() []cel.EnvOption {
	str := cel.StringType
	return []cel.EnvOption{
		cel.Variable("authorizer", authorizerType),
		cel.Variable("authorizer.requestResource", resourceCheckType),
		cel.Function("path", cel.MemberOverload("authorizer_path", []*cel.Type{authorizerType, str}, pathCheckType,
			setter(pathCheckType, func(c *AuthzCheck, s string) { c.Path = s }))),
		cel.Function("group", cel.MemberOverload("authorizer_group", []*cel.Type{authorizerType, str}, groupCheckType,
			setter(groupCheckType, func(c *AuthzCheck, s string) { c.Group = s }))),
		cel.Function("serviceAccount", cel.MemberOverload("authorizer_serviceaccount", []*cel.Type{authorizerType, str, str}, authorizerType,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val {
				v, ns, bad := authzArgs(args[0], args[1])
				name, ok := args[2].(types.String)
				if bad != nil || !ok {
					return types.MaybeNoSuchOverloadErr(args[2])
				}
				n := *v
				n.user = User{Name: "system:serviceaccount:" + ns + ":" + string(name), Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}}
				return &n
			}))),
		cel.Function("resource", cel.MemberOverload("groupcheck_resource", []*cel.Type{groupCheckType, str}, resourceCheckType,
			setter(resourceCheckType, func(c *AuthzCheck, s string) { c.Resource = s }))),
		cel.Function("subresource", cel.MemberOverload("resourcecheck_subresource", []*cel.Type{resourceCheckType, str}, resourceCheckType,
			setter(resourceCheckType, func(c *AuthzCheck, s string) { c.Subresource = s }))),
		cel.Function("namespace", cel.MemberOverload("resourcecheck_namespace", []*cel.Type{resourceCheckType, str}, resourceCheckType,
			setter(resourceCheckType, func(c *AuthzCheck, s string) { c.Namespace = s }))),
		cel.Function("name", cel.MemberOverload("resourcecheck_name", []*cel.Type{resourceCheckType, str}, resourceCheckType,
			setter(resourceCheckType, func(c *AuthzCheck, s string) { c.Name = s }))),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*cel.Type{pathCheckType, str}, decisionType, cel.BinaryBinding(decide)),
			cel.MemberOverload("resourcecheck_check", []*cel.Type{resourceCheckType, str}, decisionType, cel.BinaryBinding(decide))),
		cel.Function("allowed", cel.MemberOverload("decision_allowed", []*cel.Type{decisionType}, cel.BoolType,
			decisionField(func(d *authzVal) ref.Val { return types.Bool(d.allowed) }))),
		cel.Function("reason", cel.MemberOverload("decision_reason", []*cel.Type{decisionType}, str,
			decisionField(func(d *authzVal) ref.Val { return types.String(d.reason) }))),
		cel.Function("errored", cel.MemberOverload("decision_errored", []*cel.Type{decisionType}, cel.BoolType,
			decisionField(func(*authzVal) ref.Val { return types.False }))),
		cel.Function("error", cel.MemberOverload("decision_error", []*cel.Type{decisionType}, str,
			decisionField(func(*authzVal) ref.Val { return types.String("") }))),
	}
}

// addAuthorizer binds the authorizer variables of a request: checks as
// its user, authorizer.requestResource naming the request's resource.
func addAuthorizer(m map[string]any, a *Attributes) {
	base := &authzVal{typ: authorizerType, user: a.User, decide: a.Authorize}
	m["authorizer"] = base
	m["authorizer.requestResource"] = base.with(resourceCheckType, func(c *AuthzCheck) {
		*c = AuthzCheck{Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name}
	})
}
