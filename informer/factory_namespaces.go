package informer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// NamespacesSpec says which MultiNamespaceInformer ForNamespaces returns:
// a Spec (its Source.Namespace empty) and the namespaces, by name or by a
// label selector. Every field is part of the sharing key; the order of
// Namespaces and duplicates in it are not.
type NamespacesSpec[T meta.Object] struct {
	Spec[T]
	Namespaces        []string
	NamespaceSelector string
}

// ForNamespaces returns the Factory's informer over spec's namespaces,
// creating it on first use (see NewMultiNamespace); it is shared like the
// informers of For, and runs, stops and syncs with the Factory. Namespaces
// added to or removed from a shared informer change it for every caller;
// its key stays the set it was made with.
func ForNamespaces[T meta.Object](f *Factory, spec NamespacesSpec[T]) (*MultiNamespaceInformer[T], error) {
	if spec.Transform.Func != nil && spec.Transform.Name == "" {
		return nil, fmt.Errorf("informer for %s: %w: a shared transform needs a Name", spec.Resource, ErrInvalidOptions)
	}
	key := keyOf(spec.Spec)
	key.namespaces = namespacesKey(spec.Namespaces, spec.NamespaceSelector)

	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.informers[key]; ok {
		return s.typed.(*MultiNamespaceInformer[T]), nil
	}
	if f.state == stateStopped {
		return nil, fmt.Errorf("informer for %s: %w", spec.Resource, ErrStopped)
	}
	ropts, name := withShard(f.opts.Reflector, spec.Shard, spec.Resource)
	m, err := NewMultiNamespace(f.client, spec.Source, MultiNamespaceOptions[T]{
		Options: Options[T]{
			Name:                 name,
			Queue:                spec.Queue,
			Transform:            spec.Transform,
			SkipUnchangedUpdates: spec.SkipUnchangedUpdates,
			Reflector:            ropts,
			Clock:                f.opts.Clock,
			OnError:              f.opts.OnError,
		},
		Namespaces:        spec.Namespaces,
		NamespaceSelector: spec.NamespaceSelector,
	})
	if err != nil {
		return nil, err
	}
	f.addLocked(key, &sharedInformer{inf: m, typed: m})
	return m, nil
}

// namespacesKey is the sharing key of a set of namespaces: its sorted,
// unique names, or its selector.
func namespacesKey(namespaces []string, selector string) string {
	if selector != "" {
		return "selector " + selector
	}
	ns := slices.Compact(slices.Sorted(slices.Values(namespaces)))
	return "set " + strings.Join(ns, ",")
}
