// Package stack runs kubecache's own client stack — rest, reflector,
// informer — against the e2e target: paginated and streaming lists, watches
// from a resourceVersion, bookmarks, and the relist after a 410 forced by
// restarting the server or compacting its storage.
//
// Files (tests only):
//
//	stack_test.go  the rows: rest list and watch, the Reflector's paginated
//	               and streaming lists, relists after a restart and after
//	               compaction, the informer with handlers and a lister
package stack
