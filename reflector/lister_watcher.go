package reflector

import (
	"context"
	"errors"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// ListerWatcher is what a Reflector reads a resource through: one LIST (or
// one page of it) at a time, and WATCH streams. NewListWatchFromClient builds
// one over HTTP; ListWatch builds one from two functions.
//
// List streams: it hands each item to emit as soon as it is decoded, so that
// neither the raw response nor a slice of every decoded item is held while a
// large list arrives. If emit returns an error, List stops and returns it
// (wrapped or not). List returns the list's metadata: its resourceVersion
// and, for a paginated list, the continue token of the next page.
//
// known, which may be nil, lets List and Watch skip decoding an object the
// caller already holds: before decoding an item, an implementation may call
// known(namespace, name, resourceVersion) with the values it peeked from the
// raw item, and hand over the object known returns instead of decoding. An
// implementation that cannot peek ignores known.
//
// Watch opens a watch with the given options. The returned watch's events
// arrive on its ResultChan; the caller stops it. A failed request returns
// an error that carries the server's Status (a *rest.StatusError) so the
// caller can classify it.
//
// Both must honour ctx: when it is cancelled, List returns and an open watch
// ends.
type ListerWatcher[T meta.Object] interface {
	List(ctx context.Context, opts ListOptions, known Known[T], emit func(T) error) (meta.ListMeta, error)
	Watch(ctx context.Context, opts ListOptions, known Known[T]) (watch.Interface[T], error)
}

// Known returns the object the caller already holds under namespace and
// name, if and only if its resourceVersion is resourceVersion; the object is
// then unchanged and can be reused instead of decoded again. A Known must be
// safe for concurrent use: a watch may call it from its own goroutine.
type Known[T meta.Object] func(namespace, name, resourceVersion string) (T, bool)

// ListWatch is a ListerWatcher made of two functions, for tests and for
// sources that are not an API server. Both fields must be set.
type ListWatch[T meta.Object] struct {
	ListFunc  func(ctx context.Context, opts ListOptions, known Known[T], emit func(T) error) (meta.ListMeta, error)
	WatchFunc func(ctx context.Context, opts ListOptions, known Known[T]) (watch.Interface[T], error)

	// desc is what NewListWatch's ListerWatcher lists (Describe).
	desc Description
}

// errNoFunc is returned by a ListWatch whose function is missing.
var errNoFunc = errors.New("ListWatch function is nil")

// List calls ListFunc.
func (lw *ListWatch[T]) List(ctx context.Context, opts ListOptions, known Known[T], emit func(T) error) (meta.ListMeta, error) {
	if lw.ListFunc == nil {
		return meta.ListMeta{}, errNoFunc
	}
	return lw.ListFunc(ctx, opts, known, emit)
}

// Watch calls WatchFunc.
func (lw *ListWatch[T]) Watch(ctx context.Context, opts ListOptions, known Known[T]) (watch.Interface[T], error) {
	if lw.WatchFunc == nil {
		return nil, errNoFunc
	}
	return lw.WatchFunc(ctx, opts, known)
}
