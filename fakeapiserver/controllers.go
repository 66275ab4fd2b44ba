package fakeapiserver

import (
	"context"

	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// serverWriter is what the in-server controllers write through: the
// server's ordinary delete and update commits, without HTTP.
type serverWriter struct{ s *Server }

// Delete deletes an object as a DELETE request with opts would.
func (w serverWriter) Delete(ctx context.Context, res *registry.Resource, ns, name string, opts meta.DeleteOptions) (*storage.Object, bool, error) {
	return w.s.delete(ctx, res, ns, name, opts)
}

// CommitUpdate commits next in place of cur, as an update would.
func (w serverWriter) CommitUpdate(ctx context.Context, res *registry.Resource, cur, next *storage.Object) (*storage.Object, error) {
	return w.s.commitUpdate(ctx, res, cur, next)
}
