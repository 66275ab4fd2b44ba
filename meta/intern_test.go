package meta

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameBytes reports whether a and b share their bytes.
func sameBytes(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// TestInternShares checks that equal short strings share their bytes,
// from bytes and from strings, and that long ones are left alone.
func TestInternShares(t *testing.T) {
	a := internBytes([]byte("app.kubernetes.io/name"))
	b := internBytes([]byte("app.kubernetes.io/name"))
	c := intern(strings.Clone("app.kubernetes.io/name"))
	assert.Equal(t, "app.kubernetes.io/name", a)
	assert.True(t, sameBytes(a, b), "internBytes twice")
	assert.True(t, sameBytes(a, c), "intern after internBytes")
	assert.Empty(t, internBytes(nil))
	assert.Empty(t, intern(""))

	long := strings.Repeat("x", internMax+1)
	assert.False(t, sameBytes(internBytes([]byte(long)), internBytes([]byte(long))), "a string over internMax is not shared")
	edge := strings.Repeat("y", internMax)
	assert.True(t, sameBytes(internBytes([]byte(edge)), internBytes([]byte(edge))), "a string of internMax bytes is shared")
}

// collidingStrings returns n different short strings that belong to the
// same set of the table.
func collidingStrings(t *testing.T, n int) []string {
	t.Helper()
	seen := map[*internSet][]string{}
	for i := range 1 << 22 {
		s := fmt.Sprintf("value-%d", i)
		set := internSetOf([]byte(s))
		seen[set] = append(seen[set], s)
		if len(seen[set]) == n {
			return seen[set]
		}
	}
	t.Fatalf("no %d strings share a set", n)
	return nil
}

// TestInternKeepsTwoOfASet checks that two strings of one set both stay
// interned while they alternate, and that a third evicts the older.
func TestInternKeepsTwoOfASet(t *testing.T) {
	s := collidingStrings(t, 3)
	set := internSetOf([]byte(s[0]))
	set[0].Store(nil) // start from an empty set, whatever ran before
	set[1].Store(nil)
	a, b := internBytes([]byte(s[0])), internBytes([]byte(s[1]))
	for range 3 {
		assert.True(t, sameBytes(a, internBytes([]byte(s[0]))), "first of the set")
		assert.True(t, sameBytes(b, internBytes([]byte(s[1]))), "second of the set")
	}
	internBytes([]byte(s[0])) // a hit moves nothing: b is still the newer
	c := internBytes([]byte(s[2]))
	assert.True(t, sameBytes(c, internBytes([]byte(s[2]))), "the third is stored")
	assert.True(t, sameBytes(b, internBytes([]byte(s[1]))), "the newer of the two stays")
	assert.False(t, sameBytes(a, internBytes([]byte(s[0]))), "the older is evicted")
}

// TestInternConcurrentCollisions looks up three strings that share a set
// (so that they keep evicting each other) from several goroutines at
// once: every lookup returns a string equal to the one asked for (the race
// detector checks the slots' publication).
func TestInternConcurrentCollisions(t *testing.T) {
	s := collidingStrings(t, 3)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				want := s[(i+g)%3]
				if got := internBytes([]byte(want)); got != want {
					errs <- fmt.Sprintf("internBytes(%q) = %q", want, got)
					return
				}
				if got := intern(strings.Clone(want)); got != want {
					errs <- fmt.Sprintf("intern(%q) = %q", want, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		require.Fail(t, e)
	}
}

// TestInternValidBytes checks the lookup that skips the UTF-8 check on a
// hit: valid bytes are interned, invalid ones are refused and never
// stored, so a later lookup of them is refused again.
func TestInternValidBytes(t *testing.T) {
	s, ok := internValidBytes([]byte("kube-system"))
	require.True(t, ok)
	again, ok := internValidBytes([]byte("kube-system"))
	require.True(t, ok)
	assert.True(t, sameBytes(s, again))

	for range 2 {
		_, ok = internValidBytes([]byte("bad\xffbyte"))
		assert.False(t, ok, "invalid UTF-8 is refused")
	}
	assert.Equal(t, "bad\ufffdbyte", internProtoString([]byte("bad\xffbyte")))
	assert.Equal(t, "bad\xffbyte", intern("bad\xffbyte"), "intern leaves invalid UTF-8 as it is, unstored")
	_, ok = internValidBytes([]byte("bad\xffbyte"))
	assert.False(t, ok)

	_, ok = internValidBytes([]byte(strings.Repeat("\xfe", internMax+1)))
	assert.False(t, ok, "a long invalid string is refused too")
	long, ok := internValidBytes([]byte(strings.Repeat("z", internMax+1)))
	assert.True(t, ok)
	assert.Len(t, long, internMax+1)
}
