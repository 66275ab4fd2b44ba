package watch

import "github.com/kubecache/kubecache/meta"

// EventType is the type of a watch event as the server names it, plus
// DecodeFailed, which kubecache produces itself.
type EventType string

// The five event types a server sends, and the local decode failure.
const (
	// Added: the object was created, or started to match the selectors, or
	// (at the start of a watch without a resourceVersion) already existed.
	Added EventType = "ADDED"
	// Modified: the object changed.
	Modified EventType = "MODIFIED"
	// Deleted: the object is gone (or stopped matching); Object is its last
	// state, with the resourceVersion of the deletion.
	Deleted EventType = "DELETED"
	// Bookmark: nothing changed, but the server has reached the
	// resourceVersion in Object's metadata. Only that field is meaningful,
	// plus the k8s.io/initial-events-end annotation that ends a streaming list.
	Bookmark EventType = "BOOKMARK"
	// Error: the server ended the watch with a Status, carried in
	// Event.Status (a 410 Expired means: list again).
	Error EventType = "ERROR"
	// DecodeFailed is never sent by a server: kubecache could not frame or
	// decode what arrived. Event.Err says what and at which byte offset.
	// Whether the watch can go on is up to its owner.
	DecodeFailed EventType = "DECODE_FAILED"
)

// InitialEventsEndAnnotation marks the bookmark that ends the initial events
// of a streaming list (sendInitialEvents=true).
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// Event is one change seen through a watch.
//
// For Added, Modified, Deleted and Bookmark, Object is set. For Error, Status
// holds what the server sent. For DecodeFailed, Err says what went wrong.
type Event[T any] struct {
	Type   EventType
	Object T
	Status *meta.Status
	Err    error
}

// Interface is an open watch. Events arrive on ResultChan in the order the
// server sent them. The channel is closed exactly once: when the stream ends
// (cleanly or not) or after Stop.
//
// Stop ends the watch and releases its connection. It is idempotent and safe
// to call from any goroutine, including while another goroutine is receiving.
type Interface[T any] interface {
	ResultChan() <-chan Event[T]
	Stop()
}
