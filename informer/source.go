package informer

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
	"github.com/kubecache/kubecache/watch"
)

// Source says what an informer lists and watches on an API server. It is
// comparable: a Factory uses it as part of its sharing key.
type Source struct {
	// Resource names the resource and its group and version, in any form
	// reflector.ParseResource accepts: "configmaps", "deployments.v1.apps",
	// "apps/v1/deployments".
	Resource string
	// Namespace restricts the informer to one namespace; "" is all
	// namespaces (and the only choice for a cluster-scoped resource).
	Namespace string
	// LabelSelector and FieldSelector restrict it to matching objects, in
	// the server's syntax ("app=web,tier!=db", "metadata.name=x").
	LabelSelector string
	FieldSelector string
}

// Metadata-only informers ask the server for PartialObjectMetadata: the
// list form for a LIST, the object form for a WATCH, each falling back to
// the full object where the server cannot (a client must accept both).
const (
	acceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

// NewListWatch returns the ListerWatcher an informer of T uses for src
// over client. It checks src first: a resource that does not parse or a
// selector that does not parse is an error naming what is wrong.
//
// When T is *meta.PartialObjectMetadata the informer is metadata-only:
// every request asks the server for PartialObjectMetadata (Accept:
// application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,
// application/json, and the PartialObjectMetadataList form for lists), so
// only names, labels, owners and the rest of the metadata cross the wire.
func NewListWatch[T meta.Object](client rest.Getter, src Source) (reflector.ListerWatcher[T], error) {
	if client == nil {
		return nil, fmt.Errorf("list-watch %s: %w: client is nil", src.Resource, ErrInvalidOptions)
	}
	if _, _, _, err := reflector.ParseResource(src.Resource); err != nil {
		return nil, fmt.Errorf("list-watch: %w", err)
	}
	labels, err := selector.ParseLabels(src.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("list-watch %s: label selector: %w", src.Resource, err)
	}
	fields, err := selector.ParseFields(src.FieldSelector)
	if err != nil {
		return nil, fmt.Errorf("list-watch %s: field selector: %w", src.Resource, err)
	}
	listClient, watchClient := client, client
	if isMetadata[T]() {
		listClient = acceptGetter{client, acceptMetadataList}
		watchClient = acceptGetter{client, acceptMetadata}
	}
	lister := reflector.NewListWatchFromClient[T](listClient, src.Resource, src.Namespace, fields)
	watcher := reflector.NewListWatchFromClient[T](watchClient, src.Resource, src.Namespace, fields)
	ls := labels.String()
	withLabels := func(opts reflector.ListOptions) reflector.ListOptions {
		switch {
		case ls == "":
		case opts.LabelSelector == "":
			opts.LabelSelector = ls
		default:
			opts.LabelSelector = ls + "," + opts.LabelSelector
		}
		return opts
	}
	return &reflector.ListWatch[T]{
		ListFunc: func(ctx context.Context, opts reflector.ListOptions, known reflector.Known[T], emit func(T) error) (meta.ListMeta, error) {
			return lister.List(ctx, withLabels(opts), known, emit)
		},
		WatchFunc: func(ctx context.Context, opts reflector.ListOptions, known reflector.Known[T]) (watch.Interface[T], error) {
			return watcher.Watch(ctx, withLabels(opts), known)
		},
	}, nil
}

// isMetadata reports whether T is the metadata-only object.
func isMetadata[T meta.Object]() bool {
	var zero T
	_, ok := any(zero).(*meta.PartialObjectMetadata)
	return ok
}

// acceptGetter builds every request with a fixed Accept header.
type acceptGetter struct {
	c      rest.Getter
	accept string
}

func (g acceptGetter) Get() *rest.Request { return g.c.Get().SetHeader("Accept", g.accept) }
