package meta

import (
	"hash/maphash"
	"sync"
	"unicode/utf8"
)

// This file shares the bytes of short strings that repeat across objects:
// namespaces, label keys and values, owner kinds, images, node names. A
// cache of 50,000 pods holds a few thousand distinct such strings, not
// hundreds of thousands of copies.
//
// The table is a direct-mapped cache: a string's hash picks one slot, a
// hit returns the slot's string, a miss puts the new string there. Unlike
// a global canonical map it needs no weak references and no cleanup, its
// memory is bounded (internSlots strings of at most internMax bytes), and
// a lookup from bytes allocates nothing when it hits. A collision only
// costs sharing, never correctness: the string returned always equals the
// one asked for.

// internMax bounds the strings worth interning: label values and short
// annotation values repeat across objects, long ones rarely do.
const internMax = 64

// The table has internShards shards of internSlots/internShards slots,
// each shard behind its own mutex so that decoders on several goroutines
// rarely wait for each other.
const (
	internSlots  = 1 << 16
	internShards = 16
)

type internShard struct {
	// mu guards slots.
	mu    sync.Mutex
	slots [internSlots / internShards]string
}

var (
	internTable [internShards]internShard
	internSeed  = maphash.MakeSeed()
)

// intern returns a string equal to s whose bytes are shared with earlier
// equal strings, when s is short.
func intern(s string) string {
	if s == "" || len(s) > internMax {
		return s
	}
	h := maphash.String(internSeed, s)
	sh := &internTable[h%internShards]
	i := (h / internShards) % uint64(len(sh.slots))
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if v := sh.slots[i]; v == s {
		return v
	}
	sh.slots[i] = s
	return s
}

// internBytes returns string(b), sharing the bytes of an earlier equal
// string when b is short; it allocates only when the table misses.
func internBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > internMax {
		return string(b)
	}
	h := maphash.Bytes(internSeed, b)
	sh := &internTable[h%internShards]
	i := (h / internShards) % uint64(len(sh.slots))
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if v := sh.slots[i]; v == string(b) {
		return v
	}
	s := string(b)
	sh.slots[i] = s
	return s
}

// internedContent decodes the contents of a checked JSON string (between
// the quotes, still escaped) as unquote does, interned.
func internedContent(content []byte, escaped bool) string {
	if !escaped && utf8.Valid(content) {
		return internBytes(content)
	}
	return intern(unquote(content))
}

// internedStringValue decodes a string, interned; null reads as "".
func (s *scanner) internedStringValue(field string) (string, error) {
	switch s.peek() {
	case '"':
		content, escaped, err := s.str()
		if err != nil {
			return "", err
		}
		return internedContent(content, escaped), nil
	case 'n':
		return "", s.literal("null")
	}
	return "", s.typeError(field, "a string")
}
