package storage

import (
	"sync"
	"sync/atomic"
)

// versionEncodings caches other versionEncodings of one object version (the protobuf
// message of a list item, say), so that each is computed once per
// version however many lists and watchers ask for it. Storage does not
// know the versionEncodings: callers name them and say how to build them.
type versionEncodings struct {
	// last is the entry found or built most recently: a list asks for
	// the same encoding of every object, so most lookups end here
	// without the lock.
	last atomic.Pointer[versionEncoding]
	// mu guards entries.
	mu      sync.Mutex
	entries []*versionEncoding
}

type versionEncoding struct {
	key  string
	data []byte
}

// Encoded returns the encoding key of o, building it with build on first
// use. An object made without Assemble (a test's literal) caches nothing.
func (o *Object) Encoded(key string, build func() []byte) []byte {
	if o.encodings == nil {
		return build()
	}
	e := o.encodings
	if x := e.last.Load(); x != nil && x.key == key {
		return x.data
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.entries {
		if x.key == key {
			e.last.Store(x)
			return x.data
		}
	}
	x := &versionEncoding{key, build()}
	e.entries = append(e.entries, x)
	e.last.Store(x)
	return x.data
}
