package informer

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// MultiNamespaceInformer is an informer over a set of namespaces: one list
// and watch (one reflector) per namespace, merged into one cache with one
// event log and one set of handlers. It is for a controller allowed to
// read only some namespaces, or that should not watch a whole cluster to
// see a few of them.
//
// The set is fixed at New (MultiNamespaceOptions.Namespaces) and changed
// at run time with AddNamespace and RemoveNamespace, or follows the
// namespaces whose labels match MultiNamespaceOptions.NamespaceSelector
// (a watch on Namespaces with that label selector: a namespace that comes
// to match is added, one that stops matching or is deleted is removed).
//
// Each namespace is its own reflector, so a fault in one — a watch cut, a
// 410 and the relist that follows — relists that namespace alone: the
// other namespaces' objects are not listed again and their handlers hear
// nothing. A namespace removed from the set is forgotten: each of its
// objects is deleted from the cache, and handlers get OnDelete with
// finalStateUnknown set (the objects still exist; the informer stopped
// looking at them).
//
// Everything an Informer offers works across the set: the Indexer and
// Lister hold every namespace's objects; HasSynced turns true once every
// namespace of the set at Run (for a selector: every namespace matching
// when the namespaces were first listed) has its first list in the cache
// and its handlers were told; OnAdd's initial is true for those objects
// only (a namespace added later brings its objects with initial false).
// StoreResourceVersion and WaitForFreshness use the oldest of the
// namespaces' resourceVersions (a namespace added later counts once its
// first list is applied); Namespaces reports each namespace's.
type MultiNamespaceInformer[T meta.Object] struct {
	*Informer[T]
	set *namespaceSet[T]
}

// MultiNamespaceOptions configure a MultiNamespaceInformer: the informer's
// Options, and the namespaces.
type MultiNamespaceOptions[T meta.Object] struct {
	Options[T]
	// Namespaces is the set to start with. Duplicates count once; ""
	// (every namespace) is refused.
	Namespaces []string
	// NamespaceSelector, if set, is a label selector on Namespaces
	// ("team=a"): the set follows the namespaces that match it, and
	// Namespaces must be empty.
	NamespaceSelector string
}

// NamespaceStatus is where one namespace of a MultiNamespaceInformer is.
type NamespaceStatus struct {
	Namespace string
	// Synced reports that the namespace's first list is in the cache.
	Synced bool
	// ResourceVersion is the one the cache reflects for the namespace:
	// every change in it up to there is in the cache. "" before Synced.
	ResourceVersion string
	// Gone is set while the server does not serve the resource (see
	// Informer.Gone).
	Gone *reflector.GoneError
}

// NewMultiNamespace returns an informer over the namespaces opts names (or
// selects) of what src lists and watches through client. src.Namespace
// must be empty; src's selectors and transport apply in every namespace.
// The informer's name is opts.Name, else src.Resource. It fails when src
// or the options are invalid (ErrInvalidOptions).
func NewMultiNamespace[T meta.Object](client rest.Getter, src reflector.Source, opts MultiNamespaceOptions[T]) (*MultiNamespaceInformer[T], error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("new multi-namespace informer for %s: %w: %s", src.Resource, ErrInvalidOptions, fmt.Sprintf(format, args...))
	}
	if src.Namespace != "" {
		return nil, bad("Source.Namespace is %q; the namespaces are in MultiNamespaceOptions", src.Namespace)
	}
	if opts.NamespaceSelector != "" && len(opts.Namespaces) > 0 {
		return nil, bad("both Namespaces and NamespaceSelector are set")
	}
	if opts.NamespaceSelector != "" {
		if _, err := selector.ParseLabels(opts.NamespaceSelector); err != nil {
			return nil, bad("NamespaceSelector: %v", err)
		}
	}
	if slices.Contains(opts.Namespaces, "") {
		return nil, bad(`namespace "" (every namespace) in Namespaces; use an ordinary informer`)
	}
	// Check the source once, as a namespace's ListerWatcher.
	probe := src
	probe.Namespace = "default"
	if _, err := reflector.NewListWatch[T](client, probe); err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = src.Resource
	}
	inf, err := newCore(opts.Options)
	if err != nil {
		return nil, err
	}
	// Log lines name the namespaces the informer starts with, or the
	// selector that chooses them.
	inf.desc = reflector.Description{Resource: src.Resource, Namespaces: slices.Clone(opts.Namespaces)}
	if opts.NamespaceSelector != "" {
		inf.desc.Namespaces = []string{"selector " + opts.NamespaceSelector}
	}
	set, err := newNamespaceSet(inf, client, src, opts.NamespaceSelector)
	if err != nil {
		return nil, err
	}
	for _, ns := range opts.Namespaces {
		if err := set.add(ns); err != nil {
			return nil, err
		}
	}
	inf.multi = set
	return &MultiNamespaceInformer[T]{Informer: inf, set: set}, nil
}

// AddNamespace adds ns to the set: its objects are listed into the cache
// (handlers get OnAdd, initial false once the informer has synced) and
// watched. Adding a namespace already in the set does nothing. It fails
// for "" and for an informer whose set follows a NamespaceSelector.
func (m *MultiNamespaceInformer[T]) AddNamespace(ns string) error {
	if err := m.set.manual(ns); err != nil {
		return err
	}
	return m.set.add(ns)
}

// RemoveNamespace removes ns from the set: its watch is stopped, and
// each of its objects is deleted from the cache (OnDelete with
// finalStateUnknown set). It waits for the namespace's reflector to stop,
// or for ctx to end. Removing a namespace not in the set does nothing. It
// fails for an informer whose set follows a NamespaceSelector.
func (m *MultiNamespaceInformer[T]) RemoveNamespace(ctx context.Context, ns string) error {
	if err := m.set.manual(ns); err != nil {
		return err
	}
	return m.set.remove(ctx, ns)
}

// Namespaces returns the status of each namespace of the set, sorted by
// name.
func (m *MultiNamespaceInformer[T]) Namespaces() []NamespaceStatus { return m.set.statuses() }

// WaitForNamespaceFreshness waits until the cache reflects resourceVersion
// rv in namespace ns — typically that of an object the caller has just
// written there — as Informer.WaitForFreshness does for the whole set,
// but without waiting for the other namespaces to hear of rv. It returns
// a *StaleCacheError if ctx ends first, and an error if ns is not in the
// set or rv is not an unsigned integer.
func (m *MultiNamespaceInformer[T]) WaitForNamespaceFreshness(ctx context.Context, ns, rv string) error {
	return m.set.waitFresh(ctx, ns, rv)
}
