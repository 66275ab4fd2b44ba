package meta

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// skipRecursive is the plain way to check and skip a value, through
// object and array and their callbacks: the reference skipComposite must
// agree with, position and error alike.
func (s *scanner) skipRecursive() error {
	switch s.peek() {
	case '{':
		return s.object(func(_ []byte, _ bool, _ int) error { return s.skipRecursive() })
	case '[':
		return s.array(func(int) error { return s.skipRecursive() })
	}
	return s.skipValue()
}

// skipBoth skips data's first value both ways and requires the same end
// position, nesting count and error.
func skipBoth(t *testing.T, data []byte) error {
	t.Helper()
	fast, slow := scanner{data: data}, scanner{data: data}
	fastErr, slowErr := fast.skipValue(), slow.skipRecursive()
	if slowErr != nil {
		require.Error(t, fastErr, "%q: the recursive skip failed with %v", data, slowErr)
		require.Equal(t, slowErr.Error(), fastErr.Error(), "%q", data)
		return fastErr
	}
	require.NoError(t, fastErr, "%q", data)
	require.Equal(t, slow.pos, fast.pos, "%q: end position", data)
	require.Equal(t, 0, fast.depth, "%q: nesting left open", data)
	require.Equal(t, slow.spaced, fast.spaced, "%q: whitespace seen", data)
	return nil
}

func TestSkipCompositeMatchesRecursive(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":1}`, `[1,2,3]`, `{"a":{"b":[true,false,null,"x",-1.5e3]}}`,
		` { "a" : [ 1 , { } ] } tail`, `[[],[[]],{}]`, `{"a":[{"b":{}}],"c":"d"}`,
		`{"a"}`, `{"a":}`, `{0000000000:1}`, `{"":{0":[{}]}}`, `{"a":1,}`, `{,}`, `[1,]`, `[1 2]`, `{"a":1 "b":2}`, `{1:2}`,
		`[`, `{`, `{"a":[1}`, `[{]`, `{"a":tru}`, `["\x"]`, "[\"\x01\"]", `[01]`, `{"a":"b"]`,
	} {
		skipBoth(t, []byte(s))
	}
}

// Containers nested past one word of the stack, and past maxDepth, which
// must fail as the recursive skip fails rather than overflow anything.
func TestSkipCompositeDeepNesting(t *testing.T) {
	for _, depth := range []int{63, 64, 65, 128, 129, 1000, maxDepth} {
		mixed := strings.Repeat(`{"a":[`, depth/2) + strings.Repeat(`]}`, depth/2)
		require.NoError(t, skipBoth(t, []byte(mixed)), "depth %d", depth)
		arrays := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		require.NoError(t, skipBoth(t, []byte(arrays)), "depth %d", depth)
	}
	tooDeep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	err := skipBoth(t, []byte(tooDeep))
	require.ErrorContains(t, err, "nesting deeper than")
	// A closer of the wrong kind deep inside is found at the same offset.
	wrong := strings.Repeat(`{"a":[`, 100) + `1}` + strings.Repeat(`]}`, 100)
	require.ErrorContains(t, skipBoth(t, []byte(wrong)), "expected ',' or ']'")
}

// FuzzSkipComposite requires the one-loop skip to agree with the
// recursive one on arbitrary input.
func FuzzSkipComposite(f *testing.F) {
	for _, s := range []string{
		`{}`, `[1,{"a":[null]}]`, `{"a":"\u00e9","b":[1.5,-2]}`, `[[[[`, `{"a":1,}`, ` [ 1 , 2 ] `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		skipBoth(t, data)
	})
}

// BenchmarkSkip steps over the suite's pod whole, in one loop and
// recursively.
func BenchmarkSkip(b *testing.B) {
	data, err := os.ReadFile("testdata/pod.json")
	require.NoError(b, err)
	for _, way := range []struct {
		name string
		skip func(*scanner) error
	}{{"loop", (*scanner).skipValue}, {"recursive", (*scanner).skipRecursive}} {
		b.Run(way.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s := scanner{data: data}
				if err := way.skip(&s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
