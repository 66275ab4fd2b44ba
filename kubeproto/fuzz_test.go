package kubeproto

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// seedBodies adds the fixture bodies (a few per file) to a corpus.
func seedBodies(f *testing.F, add func(body []byte, js []byte)) {
	for i, fx := range loadFixtures(f) {
		if i%5 != 0 || len(fx.JSON) > 8<<10 {
			continue
		}
		body, err := base64.StdEncoding.DecodeString(fx.Proto)
		if err != nil {
			f.Fatal(err)
		}
		add(body, []byte(fx.JSON))
	}
}

// FuzzDecode feeds arbitrary bytes to Decode: it must return JSON or an
// error, never panic, and what it returns must be valid JSON that
// converts back to protobuf and to JSON again, which is then stable (the
// first round may normalize: invalid UTF-8 is written as \ufffd, which
// reads back as the character U+FFFD, then written as itself).
func FuzzDecode(f *testing.F) {
	seedBodies(f, func(body, _ []byte) { f.Add(body) })
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := Decode(body)
		if err != nil {
			return
		}
		if len(out) > outputLimit(len(body)) {
			t.Fatalf("Decode wrote %d bytes for %d", len(out), len(body))
		}
		if !json.Valid(out) {
			t.Fatalf("Decode wrote invalid JSON: %s", out)
		}
		env, _ := ParseEnvelope(body)
		if !bytes.Contains(out, []byte(`"kind":`)) {
			return // kinds without TypeMeta
		}
		again, err := Encode(out)
		if err != nil {
			// Whatever Decode writes, Encode must read.
			t.Fatalf("Encode(Decode(%s %s)) = %v; JSON %s", env.APIVersion, env.Kind, err, out)
		}
		out2, err := Decode(again)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(body))): %v", err)
		}
		again2, err := Encode(out2)
		if err != nil || !bytes.Equal(again, again2) {
			t.Fatalf("Encode(Decode(Encode(Decode(body)))) differs (%v): %s", err, out2)
		}
	})
}

// FuzzEncode feeds arbitrary JSON to Encode: protobuf or an error, never
// a panic; what it writes decodes, and re-encodes to the same bytes.
func FuzzEncode(f *testing.F) {
	seedBodies(f, func(_, js []byte) { f.Add(js) })
	f.Add([]byte(configMapJSON))
	f.Fuzz(func(t *testing.T, js []byte) {
		body, err := Encode(js)
		if err != nil {
			return
		}
		if len(body) > outputLimit(len(js))+len(Magic)+64 {
			t.Fatalf("Encode wrote %d bytes for %d", len(body), len(js))
		}
		out, err := Decode(body)
		if err != nil {
			t.Fatalf("Decode(Encode(%s)) = %v", js, err)
		}
		again, err := Encode(out)
		if err != nil || !bytes.Equal(body, again) {
			t.Fatalf("Encode(Decode(Encode(js))) differs (%v) for %s", err, js)
		}
	})
}

// FuzzWatchFrame feeds arbitrary streams to ReadFrame and
// DecodeWatchEvent.
func FuzzWatchFrame(f *testing.F) {
	obj, _ := Encode([]byte(configMapJSON))
	f.Add(AppendWatchFrame(nil, "ADDED", obj))
	f.Add([]byte{0, 0, 0, 2, 0x0a, 0})
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := bytes.NewReader(stream)
		for {
			frame, err := ReadFrame(r, 1<<20)
			if err != nil {
				return
			}
			if out, err := DecodeWatchEvent(frame); err == nil && !json.Valid(out) {
				t.Fatalf("invalid JSON %s", out)
			}
		}
	})
}

// FuzzReadField compares ReadField, whose fast path reads the common tags
// and lengths itself, with the general reader it falls back to: the same
// field, the same next index, and an error exactly when the general
// reader fails.
func FuzzReadField(f *testing.F) {
	f.Add([]byte{0x0a, 0x01, 'x'}, 0)            // bytes, one-byte tag
	f.Add([]byte{0x08, 0x96, 0x01, 0x00}, 0)     // varint of two bytes
	f.Add([]byte{0x10, 0x05, 0x00, 0x00}, 0)     // varint of one byte
	f.Add([]byte{0x92, 0x01, 0x02, 'a', 'b'}, 0) // bytes, two-byte tag (field 18)
	f.Add([]byte{0x0a, 0x80, 0x01, 0x00}, 0)     // length past the end
	f.Add([]byte{0x00, 0x01, 0x02, 0x03}, 0)     // field number 0
	f.Add([]byte{0x0f, 0x01, 0x02, 0x03}, 1)     // wire type 7
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			i = 0
		}
		got, gotNext, gotErr := ReadField(b, i)
		want, wantNext, wantErr := readFieldSlow(b, i)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("ReadField(%x, %d) error %v, general reader %v", b, i, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if got.Num != want.Num || got.Wire != want.Wire || got.Varint != want.Varint ||
			!bytes.Equal(got.Data, want.Data) || gotNext != wantNext {
			t.Fatalf("ReadField(%x, %d) = %+v, %d; general reader %+v, %d", b, i, got, gotNext, want, wantNext)
		}
	})
}
