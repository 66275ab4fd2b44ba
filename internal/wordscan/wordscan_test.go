package wordscan

import (
	"encoding/binary"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
)

// firstMatch is the byte-by-byte answer the masks must give.
func firstMatch(b []byte, match func(byte) bool) int {
	for i, c := range b {
		if match(c) {
			return i
		}
	}
	return 8
}

func quoteOrBackslash(c byte) bool { return c == '"' || c == '\\' }

func quoteBackslashOrControl(c byte) bool { return quoteOrBackslash(c) || c < 0x20 }

// lowest returns the index of the lowest marked byte, or 8 for none.
func lowest(mask uint64) int {
	if mask == 0 {
		return 8
	}
	return bits.TrailingZeros64(mask) / 8
}

func TestMasksFindTheFirstMatch(t *testing.T) {
	for _, s := range []string{
		"abcdefgh", `abc"efgh`, `"bcdefgh`, `abcdefg"`, `a\c"efgh`, "abc\x01efgh", "\x1f\"\\\"\x00abc",
		"\xff\xfe\x80\x7f\x22\x5c\x20\x19", "\x00\x00\x00\x00\x00\x00\x00\x00", `""""""""`, "       \x1f",
	} {
		b := []byte(s)
		w := binary.LittleEndian.Uint64(b)
		require.Equal(t, firstMatch(b, quoteOrBackslash), lowest(QuoteOrBackslash(w)), "QuoteOrBackslash(%q)", s)
		require.Equal(t, firstMatch(b, quoteBackslashOrControl), lowest(QuoteBackslashOrControl(w)), "QuoteBackslashOrControl(%q)", s)
	}
}

func FuzzMasks(f *testing.F) {
	f.Add(uint64(0))
	f.Add(binary.LittleEndian.Uint64([]byte(`ab"\` + "\x01\x7f\xff ")))
	f.Fuzz(func(t *testing.T, w uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], w)
		require.Equal(t, firstMatch(b[:], quoteOrBackslash), lowest(QuoteOrBackslash(w)))
		require.Equal(t, firstMatch(b[:], quoteBackslashOrControl), lowest(QuoteBackslashOrControl(w)))
	})
}
