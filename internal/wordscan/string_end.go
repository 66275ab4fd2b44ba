package wordscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// StringEnd returns the index just past the closing quote of the string
// whose contents continue at b[i:], and true; or an index at or past len(b)
// and false if the closing quote has not arrived yet. Scanning resumes from
// that index once more bytes are appended (it is past len(b) when b ends
// with a backslash whose escaped byte is still to come).
//
// Most strings in Kubernetes objects are short, so the first bytes are
// checked eight at a time in a register for a quote or a backslash. A long
// string (a ConfigMap value, an annotation) is then skipped with
// bytes.IndexByte, which finds quotes many bytes at a time; whether a quote
// found is escaped is decided by counting the backslashes before it. The
// byte before b[i] must be the string's opening quote, which that count
// stops at. StringEnd finds the end only; it checks nothing else.
func StringEnd(b []byte, i int) (int, bool) {
	for stop := min(i+shortString, len(b)-8); i <= stop; {
		m := QuoteOrBackslash(binary.LittleEndian.Uint64(b[i:]))
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) >> 3
		if b[i] == '"' {
			return i + 1, true
		}
		i += 2 // a backslash and the byte it escapes
	}
	if len(b)-i < 8 {
		// The short tail of what has arrived: one byte at a time.
		for i < len(b) {
			switch b[i] {
			case '"':
				return i + 1, true
			case '\\':
				i += 2
			default:
				i++
			}
		}
		return i, false
	}
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			// An odd run of trailing backslashes escapes the byte
			// still to come.
			k := len(b)
			for b[k-1] == '\\' {
				k--
			}
			return len(b) + (len(b)-k)&1, false
		}
		q := i + j
		// The quote is escaped if an odd number of backslashes precede
		// it. The run cannot reach back past the string's opening quote.
		k := q
		for b[k-1] == '\\' {
			k--
		}
		if (q-k)&1 == 0 {
			return q + 1, true
		}
		i = q + 1
	}
}

// shortString is about how many bytes of a string StringEnd checks eight
// at a time before it switches to bytes.IndexByte.
const shortString = 64
