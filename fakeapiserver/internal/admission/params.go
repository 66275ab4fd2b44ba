package admission

import (
	"errors"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// noParam is the one evaluation of a policy without params (or of a
// binding without paramRef): params is null.
var noParam = []*jsonv.Value{nil}

// params collects the params binding b gives cp for a request in
// namespace ns, as the real server: by name or by label selector, in the
// binding's namespace or the request's; none found is a refusal only
// when parameterNotFoundAction is Deny.
func (d *Dispatcher) params(cp *compiledPolicy, b *policyBinding, ns string) ([]*jsonv.Value, error) {
	pk, ref := cp.policy.Spec.ParamKind, b.Spec.ParamRef
	if pk == nil || ref == nil {
		return noParam, nil
	}
	table, namespaced, ok := "", false, false
	if d.src != nil {
		table, namespaced, ok = d.src.ParamTable(pk.APIVersion, pk.Kind)
	}
	if !ok {
		return nil, errors.New("paramKind kind `&ParamKind{APIVersion:" + pk.APIVersion + ",Kind:" + pk.Kind + ",}` not known")
	}
	prefix := ""
	if namespaced {
		switch {
		case ref.Namespace != "":
			prefix = ref.Namespace + "/"
		case ns != "":
			prefix = ns + "/"
		default:
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.Namespace != "" {
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var out []*jsonv.Value
	switch {
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		if o := d.store.Get(table, prefix+ref.Name); o != nil {
			if doc, err := o.Document(); err == nil {
				out = append(out, &doc)
			}
		}
	case ref.Selector != nil:
		sel, ok := ref.Selector.labels()
		if !ok {
			return nil, errors.New("invalid paramRef selector")
		}
		objs, _ := d.store.Current(table)
		objs.Ascend(prefix, func(key string, o *storage.Object) bool {
			if namespaced && (len(key) < len(prefix) || key[:len(prefix)] != prefix) {
				return false
			}
			if sel.Matches(o.Meta.Labels) {
				if doc, err := o.Document(); err == nil {
					out = append(out, &doc)
				}
			}
			return true
		})
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if len(out) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == "Deny" {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return out, nil
}
