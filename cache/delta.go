package cache

import "github.com/kubecache/kubecache/meta"

// DeltaType says what kind of change a Delta records.
type DeltaType string

// The changes a queue records.
const (
	// Added: the object appeared (Add).
	Added DeltaType = "Added"
	// Updated: the object changed (Update).
	Updated DeltaType = "Updated"
	// Deleted: the object is gone (Delete), or a relist no longer holds it
	// (Replace; then FinalStateUnknown is set).
	Deleted DeltaType = "Deleted"
	// Replaced: a relist (Replace) holds the object in this state. It may
	// or may not differ from the state the consumer last saw; compare
	// resourceVersions to tell.
	Replaced DeltaType = "Replaced"
	// Sync: a resync re-delivers the object unchanged (Resync).
	Sync DeltaType = "Sync"
)

// Delta is one recorded change of one object.
//
// Object is the object's state after the change; for Deleted it is the last
// state known. When a relist found a known object missing, the deletion
// itself was never seen, so the object may have changed after the state
// recorded here: FinalStateUnknown is then set. This flag replaces
// client-go's DeletedFinalStateUnknown tombstone, which hid the object in an
// untyped value.
type Delta[T meta.Object] struct {
	Type              DeltaType
	Object            T
	FinalStateUnknown bool
}

// Deltas are the changes of one object, oldest first.
type Deltas[T meta.Object] []Delta[T]

// Oldest returns the first delta, and false if there is none.
func (d Deltas[T]) Oldest() (Delta[T], bool) {
	if len(d) == 0 {
		return Delta[T]{}, false
	}
	return d[0], true
}

// Newest returns the last delta, and false if there is none.
func (d Deltas[T]) Newest() (Delta[T], bool) {
	if len(d) == 0 {
		return Delta[T]{}, false
	}
	return d[len(d)-1], true
}

// appendDelta appends d to ds, collapsing two consecutive deletions into one:
// the newer, unless only the older knows the final state.
func appendDelta[T meta.Object](ds Deltas[T], d Delta[T]) Deltas[T] {
	if n := len(ds); n > 0 && d.Type == Deleted && ds[n-1].Type == Deleted {
		if !d.FinalStateUnknown || ds[n-1].FinalStateUnknown {
			ds[n-1] = d
		}
		return ds
	}
	return append(ds, d)
}
