package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/controllers"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// PUT /api/v1/namespaces/{name}/finalize: the namespace controller's (and
// a stuck namespace's owner's) way to change spec.finalizers, the only
// field it writes. A terminating namespace whose spec and metadata
// finalizers are then all gone is deleted by that write.

func (s *Server) handleNamespaceFinalize(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, in, wo, err := s.readPut(r, info, res)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	finalizers := jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{}}
	if spec := storage.FindMember(in.Rest, "spec"); spec != nil && spec.Kind == jsonv.Object {
		if fs := spec.Get("finalizers"); fs != nil && fs.Kind == jsonv.Array {
			for i, f := range fs.Arr {
				if f.Kind != jsonv.String || f.Str == "" {
					request.WriteStatus(w, r, apistatus.Invalid("", "Namespace", info.Name, []apistatus.FieldError{apistatus.FieldInvalid(fmt.Sprintf("spec.finalizers[%d]", i), f.Str, "name part must be non-empty")}))
					return
				}
			}
			finalizers = fs.Clone()
		}
	}
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(res.StorageKey(), info.Name)
		if cur == nil {
			request.WriteStatus(w, r, apistatus.NotFound(res.GR(), info.Name))
			return
		}
		if rv := in.Meta.ResourceVersion; rv != "" && rv != cur.Meta.ResourceVersion {
			request.WriteStatus(w, r, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified))
			return
		}
		next, err := controllers.Rewritten(res, cur, true, func(_ *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, bool) {
			spec := jsonv.NewObject()
			if cur := storage.FindMember(rest, "spec"); cur != nil && cur.Kind == jsonv.Object {
				spec = cur.Clone()
			}
			spec.Set("finalizers", finalizers)
			return storage.ReplaceMember(rest, "spec", &spec), true
		})
		if err == nil && storage.SameContent(cur, next) {
			next = nil
		}
		var obj *storage.Object
		if err == nil {
			obj, err = s.finishUpdate(r.Context(), res, cur, next, wo.dryRun)
		}
		if errors.Is(err, storage.ErrChanged) {
			continue
		}
		if err != nil {
			request.WriteError(w, r, err)
			return
		}
		request.WriteBody(w, n, http.StatusOK, request.EncodeObject(obj, n.Format, request.GV(res.Group, info.Version)))
		return
	}
	request.WriteStatus(w, r, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified))
}
