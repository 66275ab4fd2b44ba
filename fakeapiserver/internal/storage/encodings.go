package storage

import "sync"

// versionEncodings caches other versionEncodings of one object version (the protobuf
// message of a list item, say), so that each is computed once per
// version however many lists and watchers ask for it. Storage does not
// know the versionEncodings: callers name them and say how to build them.
type versionEncodings struct {
	// mu guards entries.
	mu      sync.Mutex
	entries []versionEncoding
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
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.entries {
		if x.key == key {
			return x.data
		}
	}
	data := build()
	e.entries = append(e.entries, versionEncoding{key, data})
	return data
}
