// Package stack runs kubecache's own client stack — rest, reflector,
// informer — against the e2e target: paginated and streaming lists, watches
// from a resourceVersion, bookmarks, the relist after a 410 forced by
// restarting the server or compacting its storage, informers over many
// namespaces, and a resource that goes away and comes back.
//
// Files (tests only):
//
//	stack_test.go       the rows: rest list and watch, the Reflector's paginated
//	                    and streaming lists, relists after a restart and after
//	                    compaction, the informer with handlers and a lister
//	namespaces_test.go  an informer over a set of namespaces: one watch each,
//	                    namespaces added and removed at run time, a set that
//	                    follows a label selector on Namespaces
//	gone_test.go        a CRD deleted under its informer and created again with
//	                    other objects (ResourceGone, refill), then released
//	events_test.go      the handler that records notifications, and the waits
package stack
