// Package pmap is a persistent (immutable) sorted map from string keys to
// values: every change returns a new Map and leaves the old one intact,
// sharing all but O(log n) nodes with it.
//
// The fake API server keeps one Map per resource and per resourceVersion, so
// a paginated list can read page after page at the first page's snapshot, as
// etcd's multi-version store lets the real server do, without copying the
// collection.
//
// It is a treap: a binary search tree on the keys that is also a heap on a
// random priority derived from each key, which keeps it balanced in
// expectation. Each node records its subtree size, so Rank is O(log n).
//
// Files:
//
//	pmap.go  Map: Get, Set, Delete, Ascend, Rank and the treap beneath them
package pmap
