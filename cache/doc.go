// Package cache holds what a controller keeps locally of the cluster: keys,
// the Indexer (a thread-safe, indexed store of typed objects), the queues
// an informer drains (DeltaFIFO and FIFO), and listers. It is the
// kubecache form of client-go's tools/cache storage, generic over the
// object type: no untyped values and no type assertions.
//
// # Where it sits
//
// A Reflector lists and watches one resource and writes every change into
// a Store. Used alone, the Store is an Indexer and the Reflector keeps it a
// mirror of the server. Inside an informer, the Store is a queue; the
// informer pops deltas, applies them to its Indexer and calls its handlers:
//
//	rest (list, watch) → watch.Event[T] → reflector
//	        │
//	        ▼  Store[T]: Replace / BeginReplace…Commit (a list), Add / Update / Delete (events)
//	   ┌─────────────────────────┐
//	   │ DeltaFIFO[T] or FIFO[T] │  Queue[T]: deltas per key (Added, Updated, Deleted,
//	   └─────────────────────────┘            Replaced, Sync); Resync; HasSynced
//	        │ Pop(ctx, process)
//	        ▼
//	   informer ──apply──► Indexer[T] ◄── Lister[T] ◄── your controller
//	        │                (KnownObjects of the queue)
//	        └──► event handlers
//
// The cache never decodes: it receives decoded objects, and a Replacement
// lets the Reflector reuse, during a relist, an object whose
// resourceVersion has not changed (Replacement.Lookup) instead of decoding
// it again.
//
// # Sharing
//
// Objects go in and come out by pointer, shared by the cache and all its
// readers. Nobody may modify one after handing it to a Store or receiving
// it from one. An object whose label is changed in place is still found
// under the old label, a later update can leave it indexed under both, and
// every other reader of it races with the writer (see
// TestMutatingSharedObjectBreaksIndex and TestMutatingSharedObjectRaces).
// To change an object, copy it with meta.Clone and change the copy.
//
// # Files
//
//	keys.go               KeyFunc, MetaNamespaceKeyFunc, SplitMetaNamespaceKey, key errors
//	store.go              Store, the interface a Reflector writes into; Replacement
//	index.go              IndexFunc, Indexers, NamespaceIndex, the data of one index
//	thread_safe_store.go  the locked map and indexes behind an Indexer; building a replacement
//	indexer.go            Indexer: the cache, its index queries and its Replacement
//	delta.go              DeltaType, Delta (with FinalStateUnknown), Deltas
//	queue.go              Queue, the interface an informer drains; QueueOptions,
//	                      KnownObjects, RequeueError, ErrClosed; what both queues share
//	queue_core.go         queueCore, the lock, close gate, reads, Replace and Resync
//	queue_namespace.go    ReplaceNamespace: Replace confined to one namespace
//	                      under both queues
//	delta_fifo.go         DeltaFIFO: one entry per key, all its deltas at once
//	fifo.go               FIFO: one entry per delta, in arrival order
//	lister.go             Lister and NamespaceLister: reads by selector, name and namespace
//
// Figures for the Indexer at 100,000 objects, and the command that produced
// them, are in docs/performance.md ("cache: 100,000 objects").
package cache
