package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kubecache/kubecache/meta"
)

// Pod is a small typed object for benchmarks: the fields a scheduler-like
// controller would read.
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName   string `json:"nodeName"`
		Containers []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

// loopReader serves the same bytes over and over, in reads of at most
// chunk bytes, like a network body.
type loopReader struct {
	data  []byte
	off   int
	chunk int
}

func (r *loopReader) Read(p []byte) (int, error) {
	if len(p) > r.chunk {
		p = p[:r.chunk]
	}
	n := 0
	for n < len(p) {
		m := copy(p[n:], r.data[r.off:])
		n += m
		r.off = (r.off + m) % len(r.data)
	}
	return n, nil
}

// podFrame returns testdata/pod.json as one MODIFIED watch frame with a
// trailing newline.
func podFrame(b *testing.B) []byte {
	b.Helper()
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	return []byte(`{"type":"MODIFIED","object":` + strings.TrimSpace(string(pod)) + "}\n")
}

// BenchmarkDecoderEnvelope measures framing plus the envelope: the work the
// watch package does before any object is decoded.
func BenchmarkDecoderEnvelope(b *testing.B) {
	benchNext(b, podFrame(b))
}

// benchNext measures Decoder.Next over frame, read again and again in
// 32 KiB chunks.
func benchNext(b *testing.B, frame []byte) {
	d := NewDecoder(&loopReader{data: frame, chunk: 32 << 10}, DecoderOptions{})
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONDecoderEnvelope is the plain version BenchmarkDecoderEnvelope
// is measured against: encoding/json's Decoder reading each event into a
// type and a raw object.
func BenchmarkJSONDecoderEnvelope(b *testing.B) {
	frame := podFrame(b)
	d := json.NewDecoder(&loopReader{data: frame, chunk: 32 << 10})
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := d.Decode(&ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeTyped frames each event and decodes its object into Pod
// with encoding/json.
func BenchmarkDecodeTyped(b *testing.B) {
	benchDecodeObject(b, func(obj []byte) error {
		var p Pod
		return json.Unmarshal(obj, &p)
	})
}

// BenchmarkDecodeUnstructured frames each event and decodes its object into
// meta.Unstructured.
func BenchmarkDecodeUnstructured(b *testing.B) {
	benchDecodeObject(b, func(obj []byte) error {
		var u meta.Unstructured
		return json.Unmarshal(obj, &u)
	})
}

// benchDecodeObject frames pod events with a Decoder and hands each
// event's object to decode.
func benchDecodeObject(b *testing.B, decode func(obj []byte) error) {
	frame := podFrame(b)
	d := NewDecoder(&loopReader{data: frame, chunk: 32 << 10}, DecoderOptions{})
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := d.Next()
		if err != nil {
			b.Fatal(err)
		}
		if err := decode(f.Object); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamWatcherTyped runs the whole watch path: a StreamWatcher
// over a body, decoding into Pod, events received from the channel.
func BenchmarkStreamWatcherTyped(b *testing.B) {
	frame := podFrame(b)
	body := io.NopCloser(&loopReader{data: frame, chunk: 32 << 10})
	decode := func(data []byte) (*Pod, error) {
		p := new(Pod)
		return p, json.Unmarshal(data, p)
	}
	w := NewStreamWatcher(context.Background(), body, decode, DecoderOptions{})
	defer w.Stop()
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if ev := <-w.ResultChan(); ev.Type != Modified {
			b.Fatalf("got %s event: %v", ev.Type, ev.Err)
		}
	}
}

// BenchmarkDecoderFrameSize frames events of growing size built from the
// same realistic content; time per frame should grow linearly with size
// (constant MB/s).
func BenchmarkDecoderFrameSize(b *testing.B) {
	pod, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var parts struct {
		Status struct {
			ContainerStatuses []json.RawMessage `json:"containerStatuses"`
		} `json:"status"`
	}
	if err := json.Unmarshal(pod, &parts); err != nil {
		b.Fatal(err)
	}
	unit := parts.Status.ContainerStatuses[1]
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 16 << 20} {
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			benchNext(b, sizedFrame(unit, size))
		})
	}
}

// sizedFrame builds a frame of exactly size bytes whose object is a list
// of copies of unit, padded with a string.
func sizedFrame(unit []byte, size int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"type":"ADDED","object":{"kind":"List","items":[`)
	for i := 0; buf.Len()+len(unit)+20 < size; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(unit)
	}
	buf.WriteString(`],"pad":"`)
	for buf.Len() < size-4 {
		buf.WriteByte('x')
	}
	buf.WriteString("\"}}\n")
	return buf.Bytes()
}
