package wordscan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// plainStringEnd is the byte-by-byte answer StringEnd must give for the
// string whose opening quote is b[0].
func plainStringEnd(b []byte) (int, bool) {
	i := 1
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

func TestStringEnd(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, s := range []string{
		`""`, `"a"`, `"abcdefghijklmnop"rest`, `"a\"b"`, `"a\\"b`, `"a\\\"b"`, `"unterminated`, `"ends in \`,
		`"` + long + `"`, `"` + long + `\"` + long + `"`, `"` + long + `\\` + `"`, `"` + long, `"` + long + `\`,
		`"` + long + `\\\\\"x"`,
	} {
		end, ok := StringEnd([]byte(s), 1)
		wantEnd, wantOK := plainStringEnd([]byte(s))
		require.Equal(t, wantOK, ok, "%q", s)
		require.Equal(t, wantEnd, end, "%q", s)
	}
}

func FuzzStringEnd(f *testing.F) {
	f.Add([]byte(`"abc\"def\\"tail`))
	f.Add([]byte(`"` + strings.Repeat(`ab\"`, 40)))
	f.Fuzz(func(t *testing.T, tail []byte) {
		b := append([]byte{'"'}, tail...)
		end, ok := StringEnd(b, 1)
		wantEnd, wantOK := plainStringEnd(b)
		require.Equal(t, wantOK, ok)
		require.Equal(t, wantEnd, end)
	})
}
