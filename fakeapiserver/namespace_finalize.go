package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// PUT /api/v1/namespaces/{name}/finalize: the namespace controller's (and
// a stuck namespace's owner's) way to change spec.finalizers, the only
// field it writes. A terminating namespace whose spec and metadata
// finalizers are then all gone is deleted by that write.

func (s *Server) handleNamespaceFinalize(w http.ResponseWriter, r *http.Request, info requestInfo, res *registry.Resource) {
	n, in, wo, err := s.readPut(r, info, res)
	if err != nil {
		writeError(w, r, err)
		return
	}
	finalizers := jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{}}
	if spec := findMember(in.rest, "spec"); spec != nil && spec.Kind == jsonv.Object {
		if fs := spec.Get("finalizers"); fs != nil && fs.Kind == jsonv.Array {
			for i, f := range fs.Arr {
				if f.Kind != jsonv.String || f.Str == "" {
					writeStatus(w, r, apistatus.Invalid("", "Namespace", info.name, []apistatus.FieldError{apistatus.FieldInvalid(fmt.Sprintf("spec.finalizers[%d]", i), f.Str, "name part must be non-empty")}))
					return
				}
			}
			finalizers = fs.Clone()
		}
	}
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(res.StorageKey(), info.name)
		if cur == nil {
			writeStatus(w, r, apistatus.NotFound(res.GR(), info.name))
			return
		}
		if rv := in.meta.ResourceVersion; rv != "" && rv != cur.Meta.ResourceVersion {
			writeStatus(w, r, apistatus.Conflict(res.GR(), info.name, apistatus.MsgModified))
			return
		}
		next, err := rewritten(res, cur, true, func(_ *meta.ObjectMeta, rest []jsonv.Member) ([]jsonv.Member, bool) {
			spec := jsonv.NewObject()
			if cur := findMember(rest, "spec"); cur != nil && cur.Kind == jsonv.Object {
				spec = cur.Clone()
			}
			spec.Set("finalizers", finalizers)
			return replaceMember(rest, "spec", &spec), true
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
			writeError(w, r, err)
			return
		}
		writeBody(w, n, http.StatusOK, encodeObject(obj, n.format, gv(res.Group, info.version)))
		return
	}
	writeStatus(w, r, apistatus.Conflict(res.GR(), info.name, apistatus.MsgModified))
}
