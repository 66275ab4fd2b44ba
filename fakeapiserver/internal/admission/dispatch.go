package admission

import (
	"fmt"
	"sort"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Tables of the policies and bindings in the store.
const (
	validatingPolicies = "admissionregistration.k8s.io/validatingadmissionpolicies"
	validatingBindings = "admissionregistration.k8s.io/validatingadmissionpolicybindings"
)

// Resolver answers what the dispatcher needs to know about the server's
// resources.
type Resolver interface {
	// ParamTable finds the store table of a paramKind, and whether its
	// objects are namespaced.
	ParamTable(apiVersion, kind string) (table string, namespaced, ok bool)
	// Equivalents lists the other versions a resource is served at whose
	// objects convert from the request's (matchPolicy Equivalent).
	Equivalents(group, resource, version string) []Equivalent
	// Merge lays an ApplyConfiguration over an object of a kind with
	// the kind's field structure (associative lists by key...).
	Merge(group, version, kind string, obj, config jsonv.Value) jsonv.Value
}

// Dispatcher runs the stored ValidatingAdmissionPolicies on requests.
// It is safe for concurrent use.
type Dispatcher struct {
	store *storage.Store
	src   Resolver

	mu     sync.Mutex
	cache  map[string]cachedPolicy
	mcache map[string]cachedMutating
}

type cachedMutating struct {
	rv string
	cm *compiledMutating
}

type cachedPolicy struct {
	rv string
	cp *compiledPolicy
}

// NewDispatcher returns a dispatcher reading policies, bindings,
// namespaces and params from store.
func NewDispatcher(store *storage.Store, src Resolver) *Dispatcher {
	return &Dispatcher{store: store, src: src, cache: map[string]cachedPolicy{}, mcache: map[string]cachedMutating{}}
}

// decision is a denial (or a failure to deny) of one validation.
type decision struct {
	policy, binding string
	message         string
	reason          meta.StatusReason
}

// Validate runs every policy that matches the request. It returns the
// warnings of bindings whose actions include Warn and, when a binding
// with Deny refuses the request, the real server's error.
func (d *Dispatcher) Validate(a *Attributes) ([]string, error) {
	if exempt(a) {
		return nil, nil
	}
	policies := d.policies()
	if len(policies) == 0 {
		return nil, nil
	}
	bindings := d.bindingsIn(validatingBindings)
	var denied []decision
	var warnings []string
	configError := func(cp *compiledPolicy, binding string, msg string) {
		if fp := cp.policy.Spec.FailurePolicy; fp != nil && *fp == "Ignore" {
			return
		}
		what := "policy"
		if binding != "" {
			what = "binding"
		}
		denied = append(denied, decision{policy: cp.policy.Metadata.Name, binding: binding, message: "failed to configure " + what + ": " + msg})
	}
	for _, cp := range policies {
		name := cp.policy.Metadata.Name
		mc := cp.policy.Spec.MatchConstraints
		if mc == nil {
			configError(cp, "", "policy contained no match constraints, a required field")
			continue
		}
		ok, at, err := d.matches(a, mc)
		if err != nil {
			configError(cp, "", err.Error())
			continue
		}
		if !ok {
			continue
		}
		if cp.configErr != "" {
			configError(cp, "", cp.configErr)
			continue
		}
		for _, b := range bindings[name] {
			if b.Spec.MatchResources != nil {
				ok, _, err := d.matches(a, b.Spec.MatchResources)
				if err != nil {
					configError(cp, b.Metadata.Name, err.Error())
					continue
				}
				if !ok {
					continue
				}
			}
			params, err := d.params(cp, &b, a.Namespace)
			if err != nil {
				configError(cp, b.Metadata.Name, err.Error())
				continue
			}
			in := d.inputs(a, at)
			for _, param := range params {
				for _, dec := range d.validate(cp, in, param) {
					dec.policy, dec.binding = name, b.Metadata.Name
					for _, action := range b.Spec.ValidationActions {
						switch action {
						case "Deny":
							denied = append(denied, dec)
						case "Warn":
							warnings = append(warnings, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", name, b.Metadata.Name, dec.message))
						}
					}
				}
			}
		}
	}
	if len(denied) == 0 {
		return warnings, nil
	}
	return warnings, refusal(a, denied[0])
}

// refusal is the real server's error for a denied request: a Forbidden
// message whose reason (and code) are the validation's, Invalid (422)
// unless it says otherwise.
func refusal(a *Attributes, dec decision) *meta.Status {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", dec.policy, dec.message)
	if dec.binding != "" {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", dec.policy, dec.binding, dec.message)
	}
	gr := apistatus.GroupResource{Group: a.Group, Resource: a.Resource}
	name := a.nameOf()
	reason := dec.reason
	if reason == "" {
		reason = meta.ReasonInvalid
	}
	st := apistatus.New(reasonCode(reason), reason, fmt.Sprintf("%s %q is forbidden: %s", gr.String(), name, msg))
	st.Details = &meta.StatusDetails{Name: name, Group: a.Group, Kind: a.Resource, Causes: []meta.StatusCause{{Message: msg}}}
	return st
}

func reasonCode(r meta.StatusReason) int32 {
	switch r {
	case meta.ReasonForbidden:
		return 403
	case meta.ReasonUnauthorized:
		return 401
	case meta.ReasonRequestEntityTooLarge:
		return 413
	}
	return 422
}

// exempt lists what policies never see: the admission configuration
// itself and the review resources that are not stored.
func exempt(a *Attributes) bool {
	switch a.Group {
	case "admissionregistration.k8s.io":
		switch a.Resource {
		case "validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "validatingwebhookconfigurations", "mutatingwebhookconfigurations":
			return true
		}
	case "authentication.k8s.io", "authorization.k8s.io":
		return true
	}
	return false
}

// policies returns the stored policies, compiled, in name order.
func (d *Dispatcher) policies() []*compiledPolicy {
	objs, _ := d.store.Current(validatingPolicies)
	var out []*compiledPolicy
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := map[string]bool{}
	objs.Ascend("", func(_ string, o *storage.Object) bool {
		seen[o.Meta.Name] = true
		if c, ok := d.cache[o.Meta.Name]; ok && c.rv == o.Meta.ResourceVersion {
			out = append(out, c.cp)
			return true
		}
		doc, err := o.Document()
		if err != nil {
			return true
		}
		var p validatingPolicy
		if err := decode(doc, &p); err != nil {
			return true
		}
		cp := compilePolicy(p)
		d.cache[o.Meta.Name] = cachedPolicy{rv: o.Meta.ResourceVersion, cp: cp}
		out = append(out, cp)
		return true
	})
	for name := range d.cache {
		if !seen[name] {
			delete(d.cache, name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].policy.Metadata.Name < out[j].policy.Metadata.Name })
	return out
}

// bindingsIn returns the bindings stored in table by policy name, in
// name order.
func (d *Dispatcher) bindingsIn(table string) map[string][]policyBinding {
	objs, _ := d.store.Current(table)
	out := map[string][]policyBinding{}
	objs.Ascend("", func(_ string, o *storage.Object) bool {
		doc, err := o.Document()
		if err != nil {
			return true
		}
		var b policyBinding
		if decode(doc, &b) == nil {
			out[b.Spec.PolicyName] = append(out[b.Spec.PolicyName], b)
		}
		return true
	})
	return out
}

// namespace reads a stored namespace; nil when there is none.
func (d *Dispatcher) namespace(name string) *jsonv.Value {
	o := d.store.Get("/namespaces", name)
	if o == nil {
		return nil
	}
	doc, err := o.Document()
	if err != nil {
		return nil
	}
	return &doc
}

// Active reports whether any ValidatingAdmissionPolicy is stored: when
// none is, a request need not be prepared for Validate.
func (d *Dispatcher) Active() bool {
	objs, _ := d.store.Current(validatingPolicies)
	return objs.Len() > 0
}

// MutatingActive reports whether any MutatingAdmissionPolicy is stored.
func (d *Dispatcher) MutatingActive() bool {
	objs, _ := d.store.Current(mutatingPolicies)
	return objs.Len() > 0
}
