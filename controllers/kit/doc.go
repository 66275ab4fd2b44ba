// Package kit is what every controller of the controllers tree shares:
// the loop that turns informer events into reconciles of keys, the
// clock-driven requeue, the expectations that keep a controller from
// acting twice on a stale cache, and the event recorder.
//
// A controller built on it reads like this: informers from a shared
// informer.Factory feed handlers that only Add keys to a Loop; the Loop's
// workers call the controller's reconcile function with one key at a
// time; reconcile reads the informers' caches, writes through the REST
// client, and asks to be called again later (AddAfter) when something
// depends on time. Failed reconciles are retried with the work queue's
// backoff on the wall clock: retries pace the work against the API
// server. Everything that models the cluster's own time (readiness
// delays, progress deadlines, crash back-off, leases) runs on Env.Clock,
// which a test can advance by hand.
//
// # Files
//
//	env.go          Env: the client, the informer factory, the clock (a clock.Clock), the logger and the recorder a controller is built from
//	loop.go         Loop: work queue, workers, retries, handlers that enqueue keys
//	delayer.go      AddAfter on Env.Clock: one timer for all pending keys
//	expectations.go Expectations: creations and deletions not yet seen in the cache
//	recorder.go     Recorder: core/v1 Events as the real controllers record them
//	eventbroadcaster.go EventBroadcaster, EventRecorder: events.k8s.io/v1 Events and their series, as kube-scheduler records them
//	informers.go    Shared: the one informer of a resource every controller of a process reads
//	wiring.go       Wiring: a controller's informers, indexes and handlers, set up with one error check
//	index.go        the by-controller index on shared informers
//	claim.go        Claim: adopting orphans and releasing objects that stopped matching
//	write.go        merge patches and status writes
//	revisions.go    ControllerRevisions: the revision of a template, renumbering on rollback, history limits
//	podevents.go    WatchOwnedPods: the pod handler of every pod-owning controller, with its expectations
package kit
