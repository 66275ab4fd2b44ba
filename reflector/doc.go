// Package reflector mirrors one Kubernetes resource into a Store and keeps
// it true through every fault a network or an API server can produce. It is
// the middle of the flow of one event:
//
//	API server ──HTTP──► rest ──► watch (frames → events)
//	    ──► reflector (list, then watch; resourceVersions; relist on 410)
//	    ──► cache (Store, Indexer, DeltaFIFO) ──► informer ──► controller
//
// # The folded form
//
// The whole package in one call is Mirror:
//
//	store := cache.NewIndexer[*Pod](nil)
//	err := reflector.Mirror[*Pod](ctx, client, "pods", "default", store)
//
// Mirror builds the three pieces a reader of the original article knows —
// a ListerWatcher (NewListWatchFromClient), a Reflector (NewReflector) and
// its Run — with the default Options. Build them yourself for selectors,
// a metadata-only cache, watches over a websocket, hooks or other options:
// NewListWatch takes a Source (resource, namespace, label and field
// selectors, watch transport) and is the one constructor of a
// ListerWatcher over rest; NewListWatchFromClient is its short form.
//
// The names ListerWatcher, ListWatch, NewListWatchFromClient, Store (with
// its methods) and Reflector follow the original article on client-go's
// tools/cache package, so that its readers find them here; the README's
// table "From the article to the code" maps each of them to its file.
//
// # What a Reflector does
//
// A Reflector is a state machine. Each state carries its data and prints
// itself; one function, machine.next in transitions.go, decides every move:
//
//	         ┌──────────── relist: 410, too large, stale list ◄─────────────┐
//	         ▼                                                              │
//	StreamingList ──initial-events-end──► Watching ──┬── server ends it ──► Watching (same rv)
//	    │   (the same stream goes on)       ▲        ├── 429, 5xx, network ──► BackingOff ─┐
//	    │ rejected, never finished          │        └── 410 ──► (relist, above)            │
//	    ▼                                   ├◄──────────────────────────────────────────────┘
//	Listing ──pages, then one Replace───────┘
//
// The states:
//
//   - Listing: a paginated LIST (Options.PageSize, 500 by default), at
//     resourceVersion "0" the first time (whatever the server has cached), at
//     the last synced one (not older than it) when relisting, and at "" — a
//     consistent read — after a 410, a too-large resourceVersion or a stale
//     list, so it never asks for an exact version that has been compacted.
//     Continue pages carry only the token; an expired token restarts the list
//     as one request without limit. A server that ignores limit is fine.
//   - StreamingList: a WATCH with sendInitialEvents=true, tried first unless
//     Options.DisableStreamingList. Its ADDED events fill the replacement;
//     the k8s.io/initial-events-end bookmark commits it and the same stream
//     goes on as the watch. A server that rejects it, or never ends it within
//     Options.InitialEventsTimeout, gets LIST then WATCH instead.
//   - Watching: a WATCH from the last resourceVersion with bookmarks and a
//     timeoutSeconds drawn in [5, 10) minutes. Every event and bookmark
//     advances the resume point (the initial ADDEDs of a streaming list do
//     not). A watch the server ends is reopened from there, without a
//     relist; one that ends within a second with no event counts as a
//     failure.
//   - BackingOff: a wait (exponential with jitter, capped, reset after a
//     quiet period; Retry-After for a 429) before the state that follows.
//   - ResourceGone: the server answered a list or watch 404 — the resource
//     is not served (its CRD deleted, its API group removed). Reported
//     once; the store kept or emptied (Options.EmptyWhenGone); consistent
//     lists probe for it after waits growing to Options.ResourceGoneMaxWait,
//     and the first that succeeds refills the store and watches again.
//
// What each error leads to is the error policy, written out in
// error_policy.go and reported through Options.OnError as an *Error that
// names the class and the next state. Every state change, request, page,
// bookmark and Replace is reported to Options.Trace as a typed TraceEvent,
// which is what an explain mode prints; a hook that wants every event of a
// burst without an allocation each takes them by value from
// Options.Applied instead.
//
// # Guarantees
//
//   - Bounded memory during a list: items are decoded one at a time as the
//     response streams in, never held raw; with a store that offers
//     BulkReplacer (cache.Store does) they go straight into the store's
//     staged contents, and the store swaps old for new in one step at the
//     end, so readers see the old state or the new, never half. An item
//     whose resourceVersion has not changed is not decoded at all: the
//     stored object is reused.
//   - Time never runs backwards: a list older than the last synced
//     resourceVersion is discarded (and the reflector relists
//     consistently), and no object's resourceVersion goes backwards in the
//     store — an older event or list item is skipped (compared numerically
//     when both versions are integers, as every etcd-backed server's are).
//   - Decoding happens once per object, in the ListerWatcher, never under
//     the store's lock.
//   - Every watch is bounded on the reflector's clock from the moment it is
//     requested (deadline.go): a request that never gets an answer is
//     cancelled like a stream that went quiet. That bound is the one
//     goroutine a Reflector starts, one per watch, which the step that
//     owns it stops and waits for; a watch's reader goroutine belongs to
//     the watch, which the reflector stops before it moves on. Run returns
//     only after everything has ended.
//   - Time comes from Options.Clock, so backoff, watch timeouts, the
//     streaming bound and resync are tested with a fake clock
//     (clock.Fake) instead of waits.
//
// # Files
//
//	doc.go                  this map
//	lister_watcher.go       ListerWatcher, Known, ListWatch
//	list_watch_client.go    Source, NewListWatch and NewListWatchFromClient over rest
//	                        (selectors, metadata-only lists, watch transport), ParseResource
//	wire.go                 the wire format of NewListWatch (Source.Wire: protobuf for built-in
//	                        kinds, JSON otherwise), its protobuf decoding, WatchOpened
//	mirror.go               Mirror, the folded form
//	options.go              ListOptions (the query), Options, Backoff
//	store.go                Store and what a store may add: BulkReplacer, Lookup, Resyncer, Bookmarker
//	reflector.go            Reflector: NewReflector, Run, ListAndWatch, the loop
//	state.go                the states: Listing, StreamingList, Watching, BackingOff, Stopped
//	transitions.go          machine.next, every transition
//	list.go                 the Listing step and the replace buffer
//	streaming_list.go       the StreamingList step
//	watch.go                the Watching step: events into the store
//	deadline.go             the clock-bound deadline of each watch request and stream; openWatch
//	resync.go               the resync timer
//	error_policy.go         the error policy: Classify, Error, the protocol errors
//	error_policy_client.go  what the policy reads from rest's errors (Status, Retry-After, bounds)
//	backoff.go              exponential backoff with jitter
//	gone.go                 a resource that goes away: ResourceGone, GoneError, Reflector.Gone
//	resource_version.go     comparing resourceVersions
//	logging.go              contextual logging: WithLogger, LoggerFrom, Options.Logger;
//	                        Describer and Description (what a ListerWatcher lists)
//	metrics.go              the metrics of Options.Metrics: lists, watches, durations, relists by cause
//	shard.go                Shard, ShardOf: one shard of a resource (shardSelector), and
//	                        ErrShardNotServed for a server that ignores it
//	trace.go                TraceEvent and its types
package reflector
