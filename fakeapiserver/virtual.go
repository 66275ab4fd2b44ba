package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// Virtual resources accept only create and store nothing: the review
// resources answer with a computed status (everything is allowed unless a
// forbid rule says otherwise), and a Binding assigns a pod to a node.

// handleVirtualCreate answers POST on a create-only resource.
func (s *Server) handleVirtualCreate(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, err := request.Negotiate(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	data, err := s.readVirtualBody(r, res)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	in, err := request.DecodeObject(s.registry, res, info.Version, data, r.URL.Query().Get("fieldValidation"))
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	user, _ := auth.UserFrom(r.Context())
	status, err := s.virtualStatus(r.Context(), res, info, in, user)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	rest := in.Rest
	if status != nil {
		rest = storage.ReplaceMember(rest, "status", status)
	}
	if res.Namespaced && in.Meta.Namespace == "" {
		in.Meta.Namespace = info.Namespace
	}
	in.Meta.CreationTimestamp = meta.Time{}
	obj, err := storage.Assemble(in.Kind, in.APIVersion, in.Meta, storage.EncodeRest(rest), nil)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	if res.Name == "bindings" {
		st := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess, Code: 201}
		request.WriteBody(w, n, http.StatusCreated, request.Marshal(st))
		return
	}
	request.WriteBody(w, n, http.StatusCreated, request.EncodeObject(obj, n.Format, request.GV(res.Group, info.Version)))
}

func (s *Server) virtualStatus(ctx context.Context, res *registry.Resource, info request.Info, in *request.Incoming, user User) (*jsonv.Value, error) {
	var st any
	switch res.Name {
	case "selfsubjectaccessreviews", "subjectaccessreviews", "localsubjectaccessreviews":
		st = map[string]any{"allowed": true}
		if attrs := storage.FindMember(in.Rest, "spec"); attrs != nil {
			if ra := attrs.Get("resourceAttributes"); ra != nil {
				ri := request.Info{
					Group:     registry.LookupString(ra, "group"),
					Resource:  registry.LookupString(ra, "resource"),
					Namespace: registry.LookupString(ra, "namespace"),
					Name:      registry.LookupString(ra, "name"),
				}
				who := user
				if res.Name != "selfsubjectaccessreviews" {
					who = User{Name: registry.LookupString(attrs, "user")}
				}
				if s.auth.Forbidden(who, registry.LookupString(ra, "verb"), ri) {
					st = map[string]any{"allowed": false, "denied": true, "reason": "forbidden by a fake API server rule"}
				}
			}
		}
	case "selfsubjectrulesreviews":
		st = s.rulesReviewStatus(user)
	case "selfsubjectreviews":
		st = map[string]any{"userInfo": map[string]any{"username": user.Name, "groups": user.Groups}}
	case "tokenreviews":
		token := ""
		if spec := storage.FindMember(in.Rest, "spec"); spec != nil {
			token = registry.LookupString(spec, "token")
		}
		var audiences []string
		if spec := storage.FindMember(in.Rest, "spec"); spec != nil {
			if a := spec.Get("audiences"); a != nil && a.Kind == jsonv.Array {
				for _, v := range a.Arr {
					audiences = append(audiences, v.Str)
				}
			}
		}
		if sa, ok := s.reviewServiceAccountToken(token, audiences); ok {
			st = sa
		} else if u, ok := s.opts.Tokens[token]; ok {
			st = map[string]any{"authenticated": true, "user": map[string]any{"username": u.Name, "groups": append(u.Groups, "system:authenticated")}}
		} else {
			st = map[string]any{"authenticated": false, "error": "invalid bearer token"}
		}
	case "bindings":
		return nil, s.bindPod(ctx, info.Namespace, in)
	default:
		return nil, nil
	}
	v, err := jsonv.ParseGo(st)
	if err != nil {
		return nil, err
	}
	return &v.Value, nil
}

// bindPod sets spec.nodeName of the named pod, as the scheduler's Binding
// does, with the PodScheduled=True condition and no nominated node; a pod
// already bound is a 409.
func (s *Server) bindPod(ctx context.Context, ns string, in *request.Incoming) error {
	pods := s.registry.Lookup("", "v1", "pods")
	target := storage.FindMember(in.Rest, "target")
	node := registry.LookupString(target, "name")
	if pods == nil || node == "" {
		return apistatus.Invalid("", "Binding", in.Meta.Name, []apistatus.FieldError{apistatus.FieldRequired("target.name", "")})
	}
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(pods.StorageKey(), storage.ObjectKey(ns, in.Meta.Name))
		if cur == nil {
			return apistatus.NotFound(pods.GR(), in.Meta.Name)
		}
		if v, _ := cur.Field("spec.nodeName"); v != "" {
			return apistatus.Conflict(pods.GR(), in.Meta.Name, fmt.Sprintf("pod %s is already assigned to node %q", in.Meta.Name, v))
		}
		rest, err := storage.RestOf(cur)
		if err != nil {
			return err
		}
		spec := jsonv.NewObject()
		if sp := storage.FindMember(rest, "spec"); sp != nil && sp.Kind == jsonv.Object {
			spec = sp.Clone()
		}
		spec.Set("nodeName", jsonv.NewString(node))
		rest = storage.ReplaceMember(rest, "spec", &spec)
		status := jsonv.NewObject()
		if st := storage.FindMember(rest, "status"); st != nil && st.Kind == jsonv.Object {
			status = st.Clone()
		}
		markScheduled(&status, s.clock.Now())
		rest = storage.ReplaceMember(rest, "status", &status)
		// The real server binds without the field manager: the pod's
		// managedFields stay as they were, and the pod update rules do
		// not apply.
		managed := cur.Meta.ManagedFields
		if managed == nil {
			managed = meta.ManagedFields{}
		}
		// The Binding's annotations are copied onto the pod.
		m := cur.Meta
		if len(in.Meta.Annotations) > 0 {
			m = storage.CloneMeta(cur.Meta)
			if m.Annotations == nil {
				m.Annotations = map[string]string{}
			}
			maps.Copy(m.Annotations, in.Meta.Annotations)
		}
		next, err := s.prepareUpdateManaged(ctx, pods, cur, m, rest, "binding", "kube-scheduler", cur.APIVersion, managed, false)
		if err != nil || next == nil {
			return err
		}
		if _, err := s.commitUpdate(ctx, pods, cur, next); !errors.Is(err, storage.ErrChanged) {
			return err
		}
	}
	return apistatus.Conflict(pods.GR(), in.Meta.Name, apistatus.MsgModified)
}

// markScheduled sets a pod status's PodScheduled condition to True, as
// the real binding does: the condition replaced by one with only type,
// status and a transition time (kept when it was True already), and the
// nominated node cleared.
func markScheduled(status *jsonv.Value, now time.Time) {
	status.Delete("nominatedNodeName")
	cond := jsonv.NewObject()
	cond.Set("type", jsonv.NewString("PodScheduled"))
	cond.Set("status", jsonv.NewString("True"))
	cond.Set("lastProbeTime", jsonv.Value{Kind: jsonv.Null})
	cond.Set("lastTransitionTime", jsonv.NewString(now.UTC().Format(time.RFC3339)))
	conds := status.Get("conditions")
	if conds == nil || conds.Kind != jsonv.Array {
		status.Set("conditions", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{cond}})
		return
	}
	for i := range conds.Arr {
		old := &conds.Arr[i]
		if t := old.Get("type"); t == nil || t.Str != "PodScheduled" {
			continue
		}
		if st := old.Get("status"); st != nil && st.Str == "True" {
			if lt := old.Get("lastTransitionTime"); lt != nil {
				cond.Set("lastTransitionTime", *lt)
			}
		}
		conds.Arr[i] = cond
		return
	}
	conds.Arr = append(conds.Arr, cond)
}
