package kit

import (
	"context"
	"encoding/json"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Target names an object on the server: its group, version, resource,
// namespace and name.
type Target struct {
	Group, Version, Resource string
	Namespace, Name          string
}

// request starts a request of client on t.
func (t Target) request(r *rest.Request) *rest.Request {
	if t.Group != "" {
		r = r.Group(t.Group)
	}
	if t.Version != "" {
		r = r.Version(t.Version)
	}
	r = r.Namespace(t.Namespace).Resource(t.Resource)
	if t.Name != "" {
		r = r.Name(t.Name)
	}
	return r
}

// MergePatch sends patch (encoded as JSON) as a JSON merge patch to t, or
// to its subresource when sub is not "", and decodes the answer into out
// when out is not nil. A patch that carries metadata.resourceVersion is
// refused with 409 Conflict if the object changed since.
func MergePatch(ctx context.Context, c *rest.Client, t Target, sub string, patch any, out any) error {
	r := t.request(c.Patch(rest.MergePatchType))
	if sub != "" {
		r = r.SubResource(sub)
	}
	res := r.Body(patch).Do(ctx)
	if out == nil {
		return res.Error()
	}
	return res.Into(out)
}

// Create posts obj to t's collection (t.Name is ignored) and decodes the
// created object into out when out is not nil.
func Create(ctx context.Context, c *rest.Client, t Target, obj any, out any) error {
	t.Name = ""
	res := t.request(c.Post()).Body(obj).Do(ctx)
	if out == nil {
		return res.Error()
	}
	return res.Into(out)
}

// Named returns t naming the object name.
func (t Target) Named(name string) Target {
	t.Name = name
	return t
}

// In returns t in namespace.
func (t Target) In(namespace string) Target {
	t.Namespace = namespace
	return t
}

// Get reads t into out.
func Get(ctx context.Context, c *rest.Client, t Target, out any) error {
	return t.request(c.Get()).Do(ctx).Into(out)
}

// Delete deletes t. With uid set the delete is refused if the object is
// another one of the same name by now; grace, when not nil, is the
// grace period in seconds.
func Delete(ctx context.Context, c *rest.Client, t Target, uid string, grace *int64) error {
	return deleteOpts(ctx, c, t, uid, grace, "")
}

// DeleteWith deletes t (refused if it is no longer the object with
// uid, when uid is set) with a propagationPolicy: "Background" deletes
// its dependents after it, "Foreground" before, "Orphan" leaves them.
func DeleteWith(ctx context.Context, c *rest.Client, t Target, uid, propagation string) error {
	return deleteOpts(ctx, c, t, uid, nil, propagation)
}

// deleteOpts sends a delete of t with the options given.
func deleteOpts(ctx context.Context, c *rest.Client, t Target, uid string, grace *int64, propagation string) error {
	opts := map[string]any{"kind": "DeleteOptions", "apiVersion": "v1"}
	if uid != "" {
		opts["preconditions"] = map[string]string{"uid": uid}
	}
	if grace != nil {
		opts["gracePeriodSeconds"] = *grace
	}
	if propagation != "" {
		opts["propagationPolicy"] = propagation
	}
	body, _ := json.Marshal(opts)
	return t.request(c.Delete()).Body(body).Do(ctx).Error()
}

// PutStatus replaces the status of the object m describes with status,
// conditional on m's resourceVersion (a changed object is a 409
// Conflict), and decodes the answer into out when out is not nil. kind
// and apiVersion are the object's. The whole metadata is sent because a
// real server takes a status write's annotations from its body.
func PutStatus(ctx context.Context, c *rest.Client, t Target, apiVersion, kind string, m *meta.ObjectMeta, status any, out any) error {
	md := *m
	md.ManagedFields = nil
	t.Namespace, t.Name = m.Namespace, m.Name
	body := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": &md, "status": status}
	res := t.request(c.Put()).SubResource("status").Body(body).Do(ctx)
	if out == nil {
		return res.Error()
	}
	return res.Into(out)
}
