package watch

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testFrame is a Frame with its object copied, so frames can be compared
// after the Decoder has moved on.
type testFrame struct {
	Type   EventType
	Object string
	Offset int64
}

// readAll decodes every frame of r until an error, which it returns
// (io.EOF for a clean end).
func readAll(r io.Reader, opts DecoderOptions) ([]testFrame, error) {
	d := NewDecoder(r, opts)
	var out []testFrame
	for {
		f, err := d.Next()
		if err != nil {
			return out, err
		}
		out = append(out, testFrame{f.Type, string(f.Object), f.Offset})
	}
}

// trickyStream holds several events whose strings contain everything a
// framer could trip on.
const trickyStream = `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a}{","annotations":{"q":"say \"hi\" {[","bs":"c:\\dir\\","u":"\u00e9\u2603 \ud83d\ude00","nl":"line1\nline2"}}}}
{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"b"},"spec":{"a":[1,2,{"x":[]}],"s":"\\\"","t":"\\\\"}}}` + "\r\n\t " +
	`{"object":{"kind":"Pod","metadata":{"name":"c","raw":"has a real
newline"}},"type":"DELETED"}{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}},"extra":[1,{"a":"}"}],"n":-1.5e3,"t":true,"z":null}` + "\n"

// trickyWant is what trickyStream decodes to.
var trickyWant = []testFrame{
	{Added, `{"kind":"Pod","metadata":{"name":"a}{","annotations":{"q":"say \"hi\" {[","bs":"c:\\dir\\","u":"\u00e9\u2603 \ud83d\ude00","nl":"line1\nline2"}}}`, 0},
	{Modified, `{"kind":"Pod","metadata":{"name":"b"},"spec":{"a":[1,2,{"x":[]}],"s":"\\\"","t":"\\\\"}}`, 0},
	{Deleted, `{"kind":"Pod","metadata":{"name":"c","raw":"has a real
newline"}}`, 0},
	{Bookmark, `{"metadata":{"resourceVersion":"12"}}`, 0},
}

// withOffsets fills in the offsets of want from where each frame starts in
// stream (a frame starts at a '{' following whitespace or a '}').
func withOffsets(t *testing.T, stream string, want []testFrame) []testFrame {
	t.Helper()
	out := append([]testFrame(nil), want...)
	from := 0
	for i := range out {
		obj := strings.Index(stream[from:], out[i].Object)
		require.GreaterOrEqual(t, obj, 0, "object %d not in stream", i)
		start := strings.LastIndex(stream[:from+obj], `{"`)
		// The envelope's '{' is the last one before the object that
		// starts a frame: skip back over an "object" key if needed.
		for start > from && stream[start-1] != '}' && !isSpace(stream[start-1]) {
			start = strings.LastIndex(stream[:start], `{"`)
		}
		out[i].Offset = int64(start)
		from = from + obj + len(out[i].Object)
	}
	return out
}

func TestDecoderTrickyStream(t *testing.T) {
	want := withOffsets(t, trickyStream, trickyWant)
	got, err := readAll(strings.NewReader(trickyStream), DecoderOptions{})
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, want, got)
}

func TestDecoderEverySplit(t *testing.T) {
	want := withOffsets(t, trickyStream, trickyWant)
	for i := 0; i <= len(trickyStream); i++ {
		r := io.MultiReader(strings.NewReader(trickyStream[:i]), strings.NewReader(trickyStream[i:]))
		got, err := readAll(r, DecoderOptions{})
		require.ErrorIs(t, err, io.EOF, "split at %d", i)
		require.Equal(t, want, got, "split at %d", i)
	}
}

func TestDecoderOneByteReads(t *testing.T) {
	want := withOffsets(t, trickyStream, trickyWant)
	got, err := readAll(iotest.OneByteReader(strings.NewReader(trickyStream)), DecoderOptions{})
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, want, got)
	// DataErrReader returns EOF together with the last byte.
	got, err = readAll(iotest.DataErrReader(iotest.HalfReader(strings.NewReader(trickyStream))), DecoderOptions{})
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, want, got)
}

func TestDecoderEmptyAndWhitespace(t *testing.T) {
	for _, s := range []string{"", " ", "\n\n\r\n\t  "} {
		got, err := readAll(strings.NewReader(s), DecoderOptions{})
		assert.ErrorIs(t, err, io.EOF, "stream %q", s)
		assert.Empty(t, got, "stream %q", s)
	}
}

func TestDecoderUnexpectedEOF(t *testing.T) {
	stream := `{"type":"ADDED","object":{"a":1}}` + "\n"
	for i := 1; i < len(stream)-1; i++ {
		_, err := readAll(strings.NewReader(stream[:i]), DecoderOptions{})
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d", i)
		assert.NotErrorIs(t, err, io.EOF, "cut at %d", i)
	}
	// Cut inside the second frame: the first still arrives.
	got, err := readAll(strings.NewReader(stream+stream[:20]), DecoderOptions{})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Len(t, got, 1)
	assert.Contains(t, err.Error(), "frame at byte 34")
}

func TestDecoderSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		stream string
		offset int64
		msg    string
	}{
		{`[1]`, 0, "must be a JSON object"},
		{` x`, 1, "must be a JSON object"},
		{`{"type":"ADDED","object":{}}` + "\n" + `nope`, 29, "must be a JSON object"},
		{`{"type":"ADDED","object":{}`, 0, ""}, // unexpected EOF, checked below
		{`{"object":{}}`, 0, `no "type"`},
		{`{"type":"ADDED"}`, 0, `no "object"`},
		{`{"type":1,"object":{}}`, 8, `"type" must be a string`},
		{`{"type":"ADDED","object":"x"}`, 25, `"object" must be a JSON object`},
		{`{"type":"ADDED","object":[]}`, 25, `"object" must be a JSON object`},
		{`{"type":"ADDED","object":{"a":[}}`, 31, `'}' closes '['`},
		{`{"type":"ADDED","object":{"a":1]}`, 31, `']' closes '{'`},
		{`{"type" "ADDED"}`, 8, `expected ':'`},
		{`{"type":"ADDED" "object":{}}`, 16, `expected ',' or '}'`},
		{`{"type":"ADDED",}`, 16, `expected a key`},
		{`{,}`, 1, `expected a key`},
		{`{"type":"ADDED","object":{},"n":tru}`, 32, `invalid value`},
		{`{"type":"ADDED","object":{},"n":}`, 32, `expected a value`},
	} {
		_, err := readAll(strings.NewReader(tc.stream), DecoderOptions{})
		if tc.msg == "" {
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "stream %q", tc.stream)
			continue
		}
		var se *SyntaxError
		if assert.ErrorAs(t, err, &se, "stream %q", tc.stream) {
			assert.Equal(t, tc.offset, se.Offset, "stream %q: %v", tc.stream, err)
			assert.Contains(t, se.Msg, tc.msg, "stream %q", tc.stream)
		}
	}
}

func TestDecoderErrorIsSticky(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"type":"ADDED","object":{}} x {"type":"ADDED","object":{}}`), DecoderOptions{})
	_, err := d.Next()
	require.NoError(t, err)
	_, err1 := d.Next()
	_, err2 := d.Next()
	var se *SyntaxError
	require.ErrorAs(t, err1, &se)
	assert.Equal(t, err1, err2)
}

func TestDecoderLenientEnvelope(t *testing.T) {
	stream := `{ "object" : {"k":"v"} , "x":{"type":"DELETED"}, "type" : "MODIFIED" , "y":"type" }` +
		`{"typ\u0065":"\u0041DDED","object":{}}` +
		`{"type":"FUTURE","object":{}}` +
		`{"type":"ADDED","object":{"first":1},"object":{"second":2}}`
	got, err := readAll(strings.NewReader(stream), DecoderOptions{})
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, got, 4)
	assert.Equal(t, Modified, got[0].Type)
	assert.Equal(t, `{"k":"v"}`, got[0].Object)
	assert.Equal(t, Added, got[1].Type)
	assert.Equal(t, EventType("FUTURE"), got[2].Type)
	assert.Equal(t, `{"second":2}`, got[3].Object, "the last duplicate key wins, as in encoding/json")
}

func TestDecoderFrameTooLarge(t *testing.T) {
	small := `{"type":"ADDED","object":{"a":"b"}}`
	big := `{"type":"ADDED","object":{"a":"` + strings.Repeat("x", 100) + `"}}`
	got, err := readAll(strings.NewReader(small+"\n"+big+small), DecoderOptions{MaxFrameSize: 64})
	require.ErrorIs(t, err, ErrFrameTooLarge)
	assert.Len(t, got, 1)
	assert.Contains(t, err.Error(), "frame at byte 36")
	assert.Contains(t, err.Error(), "64 bytes")

	// A frame of exactly the limit is fine.
	got, err = readAll(strings.NewReader(small+small), DecoderOptions{MaxFrameSize: len(small)})
	require.ErrorIs(t, err, io.EOF)
	assert.Len(t, got, 2)

	// Whitespace between frames does not count.
	got, err = readAll(strings.NewReader(small+strings.Repeat("\n", 10000)+small), DecoderOptions{MaxFrameSize: len(small)})
	require.ErrorIs(t, err, io.EOF)
	assert.Len(t, got, 2)
}

func TestDecoderTransportError(t *testing.T) {
	reset := errors.New("connection reset by peer")
	r := io.MultiReader(strings.NewReader(`{"type":"ADDED","object":{}}{"type"`), iotest.ErrReader(reset))
	got, err := readAll(r, DecoderOptions{})
	assert.Len(t, got, 1)
	assert.ErrorIs(t, err, ErrTransport)
	assert.ErrorIs(t, err, reset)
	assert.NotErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestDecoderLargeObject(t *testing.T) {
	// A 16 MiB+ object of many escaped and plain strings, read in odd
	// chunks, comes back byte for byte.
	var chunk bytes.Buffer
	for i := range 400 {
		chunk.WriteString(`"k`)
		chunk.WriteString(strings.Repeat("z", i%50))
		chunk.WriteString(`":"v \"}{\\ `)
		chunk.WriteString(strings.Repeat("y", i%300))
		chunk.WriteString(`",`)
	}
	var obj bytes.Buffer
	obj.WriteString(`{"data":{`)
	obj.Write(bytes.Repeat(chunk.Bytes(), 16<<20/chunk.Len()+1))
	obj.WriteString(`"end":""}}`)
	require.Greater(t, obj.Len(), 16<<20)
	var stream bytes.Buffer
	stream.Grow(obj.Len() + 100)
	stream.WriteString(`{"type":"ADDED","object":`)
	stream.Write(obj.Bytes())
	stream.WriteString("}\n" + `{"type":"DELETED","object":{}}`)
	d := NewDecoder(iotest.HalfReader(bytes.NewReader(stream.Bytes())), DecoderOptions{})
	f, err := d.Next()
	require.NoError(t, err)
	assert.Equal(t, Added, f.Type)
	assert.True(t, bytes.Equal(obj.Bytes(), f.Object), "object differs")
	f, err = d.Next()
	require.NoError(t, err)
	assert.Equal(t, Deleted, f.Type)
	assert.Equal(t, int64(obj.Len()+27), f.Offset)
	_, err = d.Next()
	assert.ErrorIs(t, err, io.EOF)
}

func TestDecoderDeepNesting(t *testing.T) {
	deep := `{"type":"ADDED","object":{"a":` + strings.Repeat("[", maxNesting+1)
	_, err := readAll(strings.NewReader(deep), DecoderOptions{})
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Msg, "nested")
}

func TestDecoderNoAllocsPerFrame(t *testing.T) {
	frame := `{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"1"},"s":"x\"y"}}` + "\n"
	stream := strings.Repeat(frame, 1000)
	r := strings.NewReader(stream)
	d := NewDecoder(r, DecoderOptions{})
	_, err := d.Next() // grows the buffer
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(500, func() {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// dataErrReader returns its data in one read together with err.
type dataErrReader struct {
	data []byte
	err  error
}

func (r *dataErrReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 {
		return n, r.err
	}
	return n, nil
}

func TestDecoderDataWithError(t *testing.T) {
	two := `{"type":"ADDED","object":{}}{"type":"DELETED","object":{}}`
	reset := errors.New("connection reset by peer")
	got, err := readAll(&dataErrReader{data: []byte(two), err: reset}, DecoderOptions{})
	assert.Len(t, got, 2, "frames that came with the error are delivered first")
	assert.ErrorIs(t, err, ErrTransport)
	assert.ErrorIs(t, err, reset)

	got, err = readAll(&dataErrReader{data: []byte(two), err: io.EOF}, DecoderOptions{})
	assert.Len(t, got, 2)
	assert.ErrorIs(t, err, io.EOF)

	got, err = readAll(&dataErrReader{data: []byte(two[:40]), err: io.EOF}, DecoderOptions{})
	assert.Len(t, got, 1)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

// zeroReader returns 0, nil forever.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestDecoderNoProgress(t *testing.T) {
	_, err := readAll(zeroReader{}, DecoderOptions{})
	assert.ErrorIs(t, err, ErrTransport)
	assert.ErrorIs(t, err, io.ErrNoProgress)
}

func TestDecoderShrinksAfterBurst(t *testing.T) {
	big := `{"type":"ADDED","object":{"a":"` + strings.Repeat("x", 4<<20) + `"}}`
	small := `{"type":"ADDED","object":{"a":"b"}}` + "\n"
	d := NewDecoder(strings.NewReader(big+strings.Repeat(small, 2*shrinkAfter+2)), DecoderOptions{})
	_, err := d.Next()
	require.NoError(t, err)
	grown := len(d.buf)
	require.Greater(t, grown, 4<<20)
	for {
		if _, err := d.Next(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	assert.Less(t, len(d.buf), grown/8, "buffer given back after %d small frames", 2*shrinkAfter)
}
