// Package storage is the fake API server's etcd: one global, strictly
// increasing resourceVersion (etcd's revision), one persistent sorted map
// of objects per resource (internal/pmap), the map as it was after each
// recent change (so a read at an older resourceVersion sees exactly that
// state), and the log of recent changes that watches resume from.
// Everything older than the compaction point is forgotten; asking for it
// is ErrCompacted, which the server answers with a 410.
//
// It is the bottom room of the fake server: it knows nothing of HTTP,
// of request parsing or of the resource registry. A table is named by a
// string the caller chooses (the server uses "group/resource"); an object
// is held as its JSON (Object) and the store only reads its key, metadata
// and selectable fields.
//
// # Files
//
//   - storage.go: Store — reads now or at an older resourceVersion,
//     Commit (compare-and-swap against the state a write was computed
//     from), compaction and the history limit, WaitFor, DropTable.
//   - limits.go: the bytes bounds — MaxObjectBytes (etcd's request
//     limit; ErrTooLarge past it) and the history bounded in bytes as
//     well as in changes (SetHistoryBytes, DefaultHistoryBytes).
//   - object.go: Object, how one version of an object is held: its JSON
//     split so the same bytes serve an object, a list item and every
//     served version; Assemble builds one, CloneMeta copies metadata.
//   - encodings.go: Object.Encoded, a version's other encodings (its
//     protobuf message), built once and kept with it; Object.Converted,
//     the object at another served version; SplitDocument.
//   - fanout.go: Watcher and Register — the fan-out that hands each
//     committed Change to every watcher of its table without blocking,
//     dropping a watcher whose bounded queue is full. A Change caches its
//     object encoded once per Encoding, an interface the watch handler
//     supplies, so storage does no wire encoding of its own.
//   - members.go: FindMember and ReplaceMember, edits of an object's
//     top-level members.
//   - rewrite.go: Store.Rewrite, the current objects of a table replaced
//     without a new resourceVersion or an event (a CRD's changed schema),
//     and Object.WithRest.
package storage
