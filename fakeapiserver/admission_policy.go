package fakeapiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/admission"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// The admission policies stored in the server (ValidatingAdmissionPolicy
// and its bindings) run on every create, update and delete of a stored
// resource after the resource's own validation, as on the real server:
// see internal/admission.

// policyResolver tells the policies about the server's resources.
type policyResolver struct{ s *Server }

// ParamTable implements admission.Resolver.
func (p policyResolver) ParamTable(apiVersion, kind string) (string, bool, bool) {
	res := p.s.registry.ByKind(apiVersion, kind)
	if res == nil {
		return "", false, false
	}
	return res.StorageKey(), res.Namespaced, true
}

// Equivalents implements admission.Resolver: a custom resource's other
// served versions (its objects convert with the None strategy, only
// apiVersion changing).
func (p policyResolver) Equivalents(group, resource, version string) []admission.Equivalent {
	var out []admission.Equivalent
	for _, g := range p.s.registry.Snapshot() {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version == version {
				continue
			}
			for _, r := range v.Resources {
				if r.Name == resource && r.Custom {
					out = append(out, admission.Equivalent{Version: v.Version, Kind: r.Kind})
				}
			}
		}
	}
	return out
}

// Merge implements admission.Resolver: a built-in kind's field
// structure from its OpenAPI schema; custom resources' objects are maps
// with atomic lists, as their applies treat them.
func (p policyResolver) Merge(group, version, kind string, obj, config jsonv.Value) jsonv.Value {
	typ := apply.Type{}
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	if res := p.s.registry.ByKind(gv, kind); res == nil || !res.Custom {
		if t, ok := apply.ForKind(openapi.Builtin(), openapi.GVK{Group: group, Version: version, Kind: kind}); ok {
			typ = t
		}
	}
	return apply.Merge(obj, config, typ)
}

// warningsKey is the context key of a request's response headers, where
// admission adds its warnings.
type warningsKey struct{}

// withWarnings returns ctx carrying the response headers warnings go to.
func withWarnings(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, warningsKey{}, h)
}

// addContextWarnings adds warnings to the response of ctx's request.
func addContextWarnings(ctx context.Context, warnings []string) {
	h, _ := ctx.Value(warningsKey{}).(http.Header)
	if h == nil {
		return
	}
	for _, w := range warnings {
		h.Add("Warning", "299 - "+strconv.Quote(w))
	}
}

// policyWrite describes a write for the policies.
type policyWrite struct {
	op          string
	res         *registry.Resource
	apiVersion  string
	subresource string
	name        string
	// obj is the object as it would be stored (metadata and the other
	// members), nil on delete; old the stored one, nil on create.
	meta    *meta.ObjectMeta
	rest    []jsonv.Member
	old     *storage.Object
	options any
	dryRun  bool
}

// admitByPolicies runs the ValidatingAdmissionPolicies on a write; their
// warnings go to the response, a Deny binding's refusal is returned.
// Policies and bindings being written are checked first.
func (s *Server) admitByPolicies(ctx context.Context, w policyWrite) error {
	if err := checkPolicyWrite(w); err != nil {
		return err
	}
	if s.policies == nil || !s.policies.Active() {
		return nil
	}
	a, err := s.policyAttributes(ctx, w)
	if err != nil {
		return err
	}
	warnings, err := s.policies.Validate(a)
	addContextWarnings(ctx, warnings)
	return err
}

// mutateByPolicies runs the MutatingAdmissionPolicies on a create or
// update: the metadata they change is set in w.meta, the members they
// made are returned.
func (s *Server) mutateByPolicies(ctx context.Context, w policyWrite) ([]jsonv.Member, error) {
	if s.policies == nil || !s.policies.MutatingActive() {
		return w.rest, nil
	}
	a, err := s.policyAttributes(ctx, w)
	if err != nil {
		return nil, err
	}
	obj, err := s.policies.Mutate(a)
	if err != nil {
		return nil, err
	}
	if obj == a.Object || jsonv.Equal(*obj, *a.Object) {
		return w.rest, nil
	}
	m := w.meta
	var rest []jsonv.Member
	for _, mem := range obj.Obj {
		switch mem.Key {
		case "kind", "apiVersion":
		case "metadata":
			var changed meta.ObjectMeta
			if err := json.Unmarshal(jsonv.Marshal(mem.Value), &changed); err != nil {
				return nil, apistatus.Internal(err)
			}
			m.Labels, m.Annotations, m.Finalizers, m.OwnerReferences = changed.Labels, changed.Annotations, changed.Finalizers, changed.OwnerReferences
		default:
			rest = append(rest, mem)
		}
	}
	// The objects the policies made are defaulted again.
	return s.builtinDecoded(w.res, w.apiVersion, m, rest), nil
}

// checkPolicyWrite validates a ValidatingAdmissionPolicy or binding being
// written.
func checkPolicyWrite(w policyWrite) error {
	if w.meta == nil || w.res.Group != "admissionregistration.k8s.io" || w.subresource != "" {
		return nil
	}
	var check func(jsonv.Value) []apistatus.FieldError
	switch w.res.Name {
	case "validatingadmissionpolicies":
		check = admission.CheckPolicy
	case "validatingadmissionpolicybindings":
		check = admission.CheckBinding
	case "mutatingadmissionpolicies":
		check = admission.CheckMutatingPolicy
	default:
		return nil
	}
	obj, err := policyObject(w.res.Kind, w.apiVersion, w.meta, w.rest)
	if err != nil {
		return err
	}
	if errs := check(*obj); len(errs) > 0 {
		return apistatus.Invalid(w.res.Group, w.res.Kind, w.meta.Name, errs)
	}
	return nil
}

// policyAttributes describes a write for the policies.
func (s *Server) policyAttributes(ctx context.Context, w policyWrite) (*admission.Attributes, error) {
	version := w.apiVersion
	if _, v, ok := strings.Cut(version, "/"); ok {
		version = v
	}
	a := &admission.Attributes{
		Operation: w.op, Group: w.res.Group, Version: version, Resource: w.res.Name, Subresource: w.subresource,
		Kind: w.res.Kind, Name: w.name, DryRun: w.dryRun, Authorize: s.policyAuthorize,
	}
	if w.meta != nil {
		a.Namespace = w.meta.Namespace
		obj, err := policyObject(w.res.Kind, w.apiVersion, w.meta, w.rest)
		if err != nil {
			return nil, err
		}
		a.Object = obj
	}
	if w.old != nil {
		a.Namespace = w.old.Meta.Namespace
		doc, err := w.old.Document()
		if err != nil {
			return nil, err
		}
		doc.Set("apiVersion", jsonv.NewString(w.apiVersion))
		a.OldObject = &doc
	}
	if w.res.Group == "" && w.res.Name == "namespaces" {
		a.Namespace = w.name
	}
	if w.options != nil {
		if b, err := json.Marshal(w.options); err == nil {
			if p, err := jsonv.Parse(b); err == nil {
				a.Options = &p.Value
			}
		}
	}
	if u, ok := auth.UserFrom(ctx); ok {
		a.User = admission.User{Name: u.Name, Groups: u.Groups}
	}
	return a, nil
}

// policyObject assembles the document policies see as object.
func policyObject(kind, apiVersion string, m *meta.ObjectMeta, rest []jsonv.Member) (*jsonv.Value, error) {
	o, err := storage.Assemble(kind, apiVersion, m, storage.EncodeRest(rest), nil)
	if err != nil {
		return nil, err
	}
	doc, err := o.Document()
	if err != nil {
		return nil, err
	}
	return &doc, nil
}

// writeOptionsDoc is a create's or update's options as request.options
// shows them.
func writeOptionsDoc(kind string, wo writeOptions) any {
	doc := map[string]any{"kind": kind, "apiVersion": "meta.k8s.io/v1"}
	if wo.manager != "" {
		doc["fieldManager"] = wo.manager
	}
	if wo.dryRun {
		doc["dryRun"] = []string{"All"}
	}
	if wo.validation != "" {
		doc["fieldValidation"] = wo.validation
	}
	return doc
}

// deleteOptionsDoc is a delete's options as request.options shows them.
func deleteOptionsDoc(opts meta.DeleteOptions) any {
	opts.Kind, opts.APIVersion = "DeleteOptions", "meta.k8s.io/v1"
	return opts
}

// policyAuthorize answers the authorizer library of policies with the
// server's forbid rules (everything else is allowed).
func (s *Server) policyAuthorize(u admission.User, verb string, c admission.AuthzCheck) (bool, string) {
	if c.Path != "" {
		return true, ""
	}
	info := request.Info{Verb: verb, Group: c.Group, Resource: c.Resource, Subresource: c.Subresource, Namespace: c.Namespace, Name: c.Name}
	if s.auth.Forbidden(auth.User{Name: u.Name, Groups: u.Groups}, verb, info) {
		return false, ""
	}
	return true, ""
}
