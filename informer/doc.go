// Package informer keeps a typed, indexed cache of one resource and tells
// event handlers about every change: the last step of the path one change
// takes from the API server to a controller.
//
// # Where it sits
//
//	rest (list, watch) → watch.Event[T] → reflector → cache queue → informer → handlers → your controller (workqueue)
//
// An Informer is three pieces from the packages below it, and a log of its
// own:
//
//	reflector.Reflector ── lists and watches, writes every change into ──┐
//	                                                                      ▼
//	    the queue: cache.FIFO (InOrder, the default: the server's order)
//	               or cache.DeltaFIFO (changes to one object grouped)
//	                                                                      │ Pop
//	                                                                      ▼
//	    the informer: applies the change to its cache.Indexer, and appends
//	    one notification to its event log, under one lock
//	                                                                      │
//	          ┌───────────────────────────┬───────────────────────────────┘
//	          ▼                           ▼
//	    handler 1's goroutine       handler 2's goroutine …   each reads the log
//	    (its own cursor)            (its own cursor)          at its own pace
//
// Objects are decoded once, by the watch's reader or the list's streaming
// decoder, outside every lock; a Transform runs right after, before the
// object is queued. One change costs one notification in the log however
// many handlers there are: a handler's buffer is the stretch of the log
// between its cursor and the end, so a slow handler delays nobody (not the
// reflector, not the cache, not another handler) and its Backlog says how
// far behind it is. Segments of the log that every cursor has left are
// freed by the garbage collector.
//
// A handler added while the informer runs first gets an OnAdd for every
// object the cache holds at that moment, then every later change: the
// snapshot and the cursor are taken under the lock that orders changes, so
// there is no gap and no duplicate. Resync is per handler and travels
// through the same log, so it is ordered with real changes.
//
// An informer reads its resource through any reflector.ListerWatcher;
// reflector.NewListWatch builds one over rest from a reflector.Source
// (resource, namespace, selectors, metadata-only when T is
// *meta.PartialObjectMetadata, and Transport: rest.WatchOverWebsocket to
// watch over a websocket). Informers of
// one process are shared through a Factory: one watch per resource, type,
// selector and transform, however many controllers read it.
//
// # Files
//
//	informer.go      Informer, Options, QueueKind: New, Run, AddEventHandler, HasSynced;
//	                 the process function that applies deltas and appends notifications
//	handler.go       Handler and the HandlerFuncs adapter
//	registration.go  Registration (HasSynced, Remove, Backlog), Informer.Registrations,
//	                 HandlerOptions, the per-handler goroutine (listener), HandlerPanicError
//	event_log.go     the shared, segmented log of notifications and the readers' cursors
//	resync.go        per-handler resync rounds
//	transform.go     Transform, DropManagedFields, and the store the reflector writes into
//	freshness.go     StoreResourceVersion, LastHeard, WaitForFreshness, StaleCacheError:
//	                 the resourceVersion the cache reflects, and progress entries for
//	                 HandlerOptions.OnBookmark and OnSynced
//	predicate.go     Predicate (HandlerOptions.Predicate): GenerationChanged, LabelsChanged,
//	                 AnnotationChanged, ResourceVersionChanged, And, Or, Not
//	logging.go       contextual logging (Options.Logger, or the Run context's logger)
//	metrics.go       the handler metrics of Options.Metrics: latency, duration, backlog
//	wait.go          WaitForCacheSync, Syncer, NotSyncedError (why a cache has not synced)
//	factory.go       Factory, For, Spec: informers shared by key
//	factory_namespaces.go  ForNamespaces, NamespacesSpec: multi-namespace informers shared by key
//	namespaces.go    MultiNamespaceInformer, NewMultiNamespace, MultiNamespaceOptions, NamespaceStatus:
//	                 one list and watch per namespace (or per namespace a label selector picks), one cache
//	namespaces_set.go    the set: members, their reflectors, the first list of all of them, freshness per namespace
//	namespaces_store.go  the store one namespace's reflector writes into
//	factory_release.go  Release, ReleaseNamespaces: stop a Factory's informer and forget it, leaving no watch
//	gone.go          Gone: the resource is not served (a CRD deleted); SyncError reports it
//	errors.go        finding the server's Status inside an error
//
// Time comes from Options.Clock (package clock), so resync rounds and
// backlog ages are tested with clock.Fake instead of waits.
//
// The subpackage leaderelection keeps two copies of a controller from both
// acting, with a coordination.k8s.io Lease. Figures for handler fan-out, and
// the command that produced them, are in docs/performance.md.
package informer
