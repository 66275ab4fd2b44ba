package fakeapiserver

import (
	"net/http"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// The subresources that reach a kubelet (pods/log, exec, attach,
// portforward, nodes/proxy) and serviceaccounts/token. With no kubelet
// the first answer as the real server does when none listens
// (internal/builtin.PodConnect).

// serveConnect handles those subresources and reports whether it did.
func (s *Server) serveConnect(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) bool {
	if info.Name == "" {
		return false
	}
	key := res.StorageKey()
	switch {
	case key == "/serviceaccounts" && info.Subresource == "token":
		if r.Method != http.MethodPost {
			request.WriteStatus(w, r, apistatus.MethodNotAllowed())
			return true
		}
		info.Verb = "create"
		if err := s.auth.Authorize(r, info, res); err != nil {
			request.WriteError(w, r, err)
			return true
		}
		s.handleTokenRequest(w, r, info)
		return true
	case key == "/pods" && (info.Subresource == "log" || info.Subresource == "exec" || info.Subresource == "attach" || info.Subresource == "portforward"):
		if info.Subresource == "log" {
			info.Verb = "get"
		} else {
			info.Verb = "create"
		}
		if err := s.auth.Authorize(r, info, res); err != nil {
			request.WriteError(w, r, err)
			return true
		}
		pod := s.store.Get(key, storage.ObjectKey(info.Namespace, info.Name))
		if pod == nil {
			request.WriteStatus(w, r, apistatus.NotFound(res.GR(), info.Name))
			return true
		}
		if info.Subresource == "log" && s.opts.PodLogs != nil {
			if log, ok := s.opts.PodLogs(info.Namespace, info.Name, r.URL.Query().Get("container")); ok {
				w.Header().Set("Content-Type", "text/plain")
				_, _ = w.Write(log)
				return true
			}
		}
		doc, err := pod.Document()
		if err != nil {
			request.WriteError(w, r, err)
			return true
		}
		var node *storage.Object
		if nn, _ := pod.Field("spec.nodeName"); nn != "" {
			node = s.store.Get("/nodes", nn)
		}
		a := builtin.PodConnect(info.Subresource, info.Namespace, info.Name, &doc, r.URL.Query().Get("container"), nodeDocument(node))
		if a.NoContent {
			w.WriteHeader(http.StatusNoContent)
			return true
		}
		request.WriteStatus(w, r, a.Status)
		return true
	case key == "/nodes" && info.Subresource == "proxy":
		info.Verb = "get"
		if err := s.auth.Authorize(r, info, res); err != nil {
			request.WriteError(w, r, err)
			return true
		}
		node := s.store.Get(key, info.Name)
		if node == nil {
			request.WriteStatus(w, r, apistatus.NotFound(res.GR(), info.Name))
			return true
		}
		request.WriteStatus(w, r, builtin.NodeProxy(nodeDocument(node), ""))
		return true
	}
	return false
}

// nodeDocument parses a stored Node, nil when there is none.
func nodeDocument(node *storage.Object) *jsonv.Value {
	if node == nil {
		return nil
	}
	doc, err := node.Document()
	if err != nil {
		return nil
	}
	return &doc
}
