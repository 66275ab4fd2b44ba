package watch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// chunkReader returns data in reads whose sizes cycle through sizes (each
// 1 to 256 bytes), however much room the caller offers.
type chunkReader struct {
	data  []byte
	sizes []byte
	n     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	size := 1
	if len(r.sizes) > 0 {
		size = int(r.sizes[r.n%len(r.sizes)]) + 1
		r.n++
	}
	size = min(size, len(p), len(r.data))
	copy(p, r.data[:size])
	r.data = r.data[size:]
	return size, nil
}

// decodeResult is everything a Decoder said about a stream: its frames and
// how it ended.
type decodeResult struct {
	frames []testFrame
	err    string
}

// decodeChunked decodes data read in chunks of the given sizes.
func decodeChunked(data, sizes []byte, opts DecoderOptions) (decodeResult, error) {
	frames, err := readAll(&chunkReader{data: data, sizes: sizes}, opts)
	return decodeResult{frames: frames, err: err.Error()}, err
}

// checkDecoderResult checks what must hold for any input: frames lie inside
// the input, and the decoder ends with one of its documented errors at an
// offset inside the input.
func checkDecoderResult(t *testing.T, data []byte, res decodeResult, err error) {
	t.Helper()
	for _, f := range res.frames {
		if f.Offset < 0 || f.Offset >= int64(len(data)) || data[f.Offset] != '{' {
			t.Fatalf("frame offset %d does not point at a '{' in %d bytes", f.Offset, len(data))
		}
		if !strings.HasPrefix(f.Object, "{") || !strings.HasSuffix(f.Object, "}") {
			t.Fatalf("object %q is not braced", f.Object)
		}
		if !bytes.Contains(data[f.Offset:], []byte(f.Object)) {
			t.Fatalf("object %q is not in the input after offset %d", f.Object, f.Offset)
		}
	}
	var se *SyntaxError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, ErrFrameTooLarge):
	case errors.As(err, &se):
		if se.Offset < 0 || se.Offset >= int64(len(data)) {
			t.Fatalf("syntax error offset %d outside %d bytes: %v", se.Offset, len(data), err)
		}
	default:
		t.Fatalf("unexpected error kind: %v", err)
	}
}

// checkAgainstEncodingJSON checks that a stream encoding/json reads as a
// sequence of well-formed envelopes decodes to the same frames.
func checkAgainstEncodingJSON(t *testing.T, data []byte, res decodeResult) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var want []testFrame
	for {
		var env map[string]json.RawMessage
		if err := dec.Decode(&env); err == io.EOF {
			break
		} else if err != nil {
			return // not a valid stream of objects: nothing to compare
		}
		typ, obj := env["type"], env["object"]
		var s string
		if len(obj) == 0 || obj[0] != '{' || json.Unmarshal(typ, &s) != nil {
			return
		}
		want = append(want, testFrame{Type: EventType(s), Object: string(obj)})
	}
	if res.err != io.EOF.Error() {
		t.Fatalf("encoding/json reads %d frames, decoder failed: %s", len(want), res.err)
	}
	if len(res.frames) != len(want) {
		t.Fatalf("decoder read %d frames, encoding/json %d", len(res.frames), len(want))
	}
	for i, f := range res.frames {
		if f.Object != want[i].Object {
			t.Fatalf("frame %d: object %q, encoding/json %q", i, f.Object, want[i].Object)
		}
		// encoding/json replaces invalid UTF-8 with U+FFFD; the Decoder
		// passes an unknown type through as it came.
		if utf8.ValidString(string(f.Type)) && f.Type != want[i].Type {
			t.Fatalf("frame %d: type %q, encoding/json %q", i, f.Type, want[i].Type)
		}
	}
}

// FuzzDecoder feeds arbitrary bytes, in arbitrary chunks, to the Decoder. It
// must not panic or hang; frames and error offsets must lie in the input;
// the result must not depend on the chunking; and wherever encoding/json
// reads the input as a stream of envelopes, the frames must match it.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte(trickyStream), []byte{0})
	f.Add([]byte(trickyStream), []byte{7, 200, 1, 30})
	f.Add([]byte(`{"type":"ADDED","object":{"a":"\\\"}"}}`), []byte{3})
	f.Add([]byte(`{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}`+"\n"), []byte{})
	f.Add([]byte(`{"type":"ADDED","object":{}`), []byte{1})
	f.Add([]byte(`{"typ\u0065":"ADDED","object":{},"x":[1,true,null]}`), []byte{2, 5})
	f.Add([]byte(`{"type":"ADDED","object":{"a":[}}`), []byte{9})
	if pod, err := os.ReadFile("testdata/pod.json"); err == nil {
		f.Add([]byte(`{"type":"MODIFIED","object":`+strings.TrimSpace(string(pod))+"}\n"), []byte{100, 13})
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		for _, max := range []int{0, 200} {
			opts := DecoderOptions{MaxFrameSize: max}
			whole, err := decodeChunked(data, []byte{255}, opts)
			checkDecoderResult(t, data, whole, err)
			chunked, _ := decodeChunked(data, sizes, opts)
			if fmt.Sprint(whole) != fmt.Sprint(chunked) {
				t.Fatalf("chunking changed the result:\nwhole   %v\nchunked %v", whole, chunked)
			}
			if max == 0 {
				checkAgainstEncodingJSON(t, data, whole)
			}
		}
	})
}

// FuzzDecoderValidFrames builds a valid watch stream from the fuzz input
// (strings of arbitrary bytes, nesting, key order, whitespace between
// frames), reads it in arbitrary chunks, and checks that exactly the
// generated frames come back.
func FuzzDecoderValidFrames(f *testing.F) {
	f.Add([]byte("hello\xffwor\"ld\\\xff}{[]\n\xff\x00\x01\u2603"), []byte{0})
	f.Add([]byte("a\\\\\\\"b\xff\xff\xffz"), []byte{1, 2, 3})
	f.Add([]byte(strings.Repeat("\\", 300)), []byte{63})
	f.Fuzz(func(t *testing.T, seed, sizes []byte) {
		stream, want := generateStream(seed)
		got, err := readAll(&chunkReader{data: stream, sizes: sizes}, DecoderOptions{})
		if !errors.Is(err, io.EOF) {
			t.Fatalf("decode: %v\nstream: %q", err, stream)
		}
		if len(got) != len(want) {
			t.Fatalf("got %d frames, want %d\nstream: %q", len(got), len(want), stream)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("frame %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
			}
		}
	})
}

// generateStream turns seed into a valid watch stream and the frames it
// holds. Each 0xff-separated piece of the seed becomes one event.
func generateStream(seed []byte) ([]byte, []testFrame) {
	types := []EventType{Added, Modified, Deleted, Bookmark, Error, "OTHER"}
	spaces := []string{"", "\n", " \r\n\t", "\n\n"}
	var stream bytes.Buffer
	var want []testFrame
	for i, piece := range bytes.Split(seed, []byte{0xff}) {
		str, _ := json.Marshal(string(piece))
		// Also a string with the piece's bytes kept raw where JSON
		// allows, escaping only quotes and backslashes.
		raw := []byte{'"'}
		for _, c := range piece {
			if c == '"' || c == '\\' {
				raw = append(raw, '\\')
			}
			raw = append(raw, c)
		}
		raw = append(raw, '"')
		depth := len(piece) % 7
		var obj bytes.Buffer
		obj.WriteString(`{"metadata":{"name":`)
		obj.Write(str)
		obj.WriteString(`},"raw":`)
		obj.Write(raw)
		obj.WriteString(`,"nest":`)
		for d := range depth {
			if d%2 == 0 {
				obj.WriteString(`[`)
				obj.Write(str)
				obj.WriteString(`,`)
			} else {
				obj.WriteString(`{"k":`)
			}
		}
		obj.WriteString(`{}`)
		for d := depth - 1; d >= 0; d-- {
			if d%2 == 0 {
				obj.WriteString(`]`)
			} else {
				obj.WriteString(`}`)
			}
		}
		obj.WriteString(`}`)
		typ := types[i%len(types)]
		stream.WriteString(spaces[i%len(spaces)])
		start := int64(stream.Len())
		if i%2 == 0 {
			fmt.Fprintf(&stream, `{"type":%q,"object":%s}`, typ, obj.Bytes())
		} else {
			fmt.Fprintf(&stream, `{ "x" : %s , "object" : %s , "type" : %q , "n" : -1.5e3 }`, raw, obj.Bytes(), typ)
		}
		want = append(want, testFrame{Type: typ, Object: obj.String(), Offset: start})
	}
	stream.WriteString("\n")
	return stream.Bytes(), want
}
