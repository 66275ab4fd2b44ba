package meta

import (
	"hash/maphash"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// This file shares the bytes of short strings that repeat across objects:
// namespaces, label keys and values, owner kinds, images, node names. A
// cache of 50,000 pods holds a few thousand distinct such strings, not
// hundreds of thousands of copies.
//
// The table is a two-way set-associative cache: a string's hash picks a
// set of two slots, a hit returns the string of either, a miss puts the
// new string in the first slot and moves the first slot's string to the
// second. So two repeated strings whose hashes pick the same set both stay
// (with one slot per set they would evict each other on every object that
// holds both). Unlike a global canonical map it needs no weak references
// and no cleanup, its memory is bounded (internSlots strings of at most
// internMax bytes), and a lookup from bytes allocates nothing when it
// hits. A collision only costs sharing, never correctness: the string
// returned always equals the one asked for.
//
// The table takes no lock, because every decoder on every goroutine looks
// strings up in it, a dozen times per object. A slot is one atomic pointer
// to an entry: a byte holding the string's length, then the string's bytes,
// written once before the pointer is published and never changed. A
// reader loads the pointer, compares the length and the bytes, and on a
// hit returns a string over the entry's bytes; a writer that replaces the
// slot at the same moment only makes that reader miss, and a reader that
// sees a set halfway through a writer's two stores finds one string twice.
//
// Every entry is valid UTF-8. So bytes equal to an entry are valid too,
// and the decoders, which must turn invalid UTF-8 into U+FFFD, check the
// bytes only when the table misses (internValidBytes).

// internMax bounds the strings worth interning: label values and short
// annotation values repeat across objects, long ones rarely do. It must
// fit the entry's length byte.
const internMax = 64

// internSlots is the number of slots in the table (a power of two), in
// internSlots/2 sets of two; the two slots of a set share a cache line.
const internSlots = 1 << 16

// internSet is one set of the table: two slots, the newer first.
type internSet [2]atomic.Pointer[byte]

var (
	internTable [internSlots / 2]internSet
	internSeed  = maphash.MakeSeed()
)

// internSetOf returns the set a string's bytes belong to.
func internSetOf(b []byte) *internSet {
	return &internTable[maphash.Bytes(internSeed, b)&(internSlots/2-1)]
}

// internLookup returns the string of the set for b that equals b, if
// any, and the set.
func internLookup(b []byte) (string, bool, *internSet) {
	set := internSetOf(b)
	for k := range set {
		if e := set[k].Load(); e != nil && int(*e) == len(b) {
			if s := unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(e), 1)), len(b)); s == string(b) {
				return s, true, set
			}
		}
	}
	return "", false, set
}

// internStore puts a copy of b first in set, moving the set's first string
// to its second slot, and returns the copy as a string.
func internStore(set *internSet, b []byte) string {
	e := make([]byte, 1+len(b))
	e[0] = byte(len(b))
	copy(e[1:], b)
	set[1].Store(set[0].Load())
	set[0].Store(&e[0])
	return unsafe.String(&e[1], len(b))
}

// intern returns a string equal to s whose bytes are shared with earlier
// equal strings, when s is short and valid UTF-8.
func intern(s string) string {
	if s == "" || len(s) > internMax {
		return s
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	v, ok, slot := internLookup(b)
	if ok {
		return v
	}
	if !utf8.Valid(b) {
		return s
	}
	return internStore(slot, b)
}

// internBytes returns string(b), sharing the bytes of an earlier equal
// string when b is short; it allocates only when the table misses. b must
// be valid UTF-8.
func internBytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > internMax {
		return string(b)
	}
	v, ok, slot := internLookup(b)
	if ok {
		return v
	}
	return internStore(slot, b)
}

// internValidBytes is internBytes for bytes that may not be valid UTF-8:
// it returns their string, interned, when they are, and ok false
// (nothing stored) when they are not. Validity is checked only on a miss.
func internValidBytes(b []byte) (s string, ok bool) {
	if len(b) == 0 {
		return "", true
	}
	if len(b) <= internMax {
		v, hit, slot := internLookup(b)
		switch {
		case hit:
			return v, true
		case utf8.Valid(b):
			return internStore(slot, b), true
		}
		return "", false
	}
	if !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// internedContent decodes the contents of a checked JSON string (between
// the quotes, still escaped) as unquote does, interned.
func internedContent(content []byte, escaped bool) string {
	if !escaped {
		if s, ok := internValidBytes(content); ok {
			return s
		}
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
