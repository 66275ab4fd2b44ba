// Package wordscan finds the bytes a JSON scanner must stop at inside a
// string, eight at a time: the JSON readers of meta, watch and the list
// splitter step over a string's plain bytes a word at a time instead of
// one by one. StringEnd, for the readers that only need to know where a
// string ends, builds on the masks below.
//
// Each function returns a mask with the high bit of every byte of w
// (first byte lowest, as binary.LittleEndian loads it) that matches. The
// tests are the classic "has a byte equal to / less than" tricks: a
// borrow can mark a byte above one truly marked, never below, so the
// lowest mark is exact, and bits.TrailingZeros64(mask)/8 is the index of
// the first byte that matches. A mask of zero means none does.
package wordscan

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// QuoteOrBackslash marks the bytes of w that are '"' or '\': where a
// string ends or an escape starts.
func QuoteOrBackslash(w uint64) uint64 {
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((quote-ones)&^quote | (backslash-ones)&^backslash) & highs
}

// QuoteBackslashOrControl marks the bytes of w that are '"', '\' or a
// control character (below 0x20), which a validating scanner must reject
// inside a string.
func QuoteBackslashOrControl(w uint64) uint64 {
	return QuoteOrBackslash(w) | (w-ones*0x20)&^w&highs
}
