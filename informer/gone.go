package informer

import "github.com/kubecache/kubecache/reflector"

// Gone returns a *reflector.GoneError while the server does not serve the
// informer's resource (a 404 on its list or watch: its CRD deleted, its
// API group removed), and nil otherwise. The informer does not spin
// meanwhile: its reflector is in the reflector.ResourceGone state, which
// it reports once to Options.OnError and at every probe to the trace hook
// (Options.Reflector.Trace), and probes with consistent lists after
// waits that grow to Options.Reflector.ResourceGoneMaxWait. The first
// probe that succeeds refills the cache with what the server holds then,
// with the usual notifications, and Gone turns nil again.
//
// The cache keeps what it held, unless Options.Reflector.EmptyWhenGone
// is set: then every object is deleted from it, and handlers get OnDelete
// with finalStateUnknown set. (A CRD deleted on a real server first sends
// a DELETED event for each of its objects, which empties the cache
// either way.) SyncError reports the GoneError too, synced or not.
//
// To stop watching for a resource that is gone for good, a Factory's
// informer is released with Release.
func (inf *Informer[T]) Gone() *reflector.GoneError {
	if inf.multi != nil {
		return inf.multi.gone()
	}
	return inf.refl.Gone()
}
