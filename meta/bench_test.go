package meta_test

import (
	"encoding/json"
	"testing"

	"github.com/kubecache/kubecache/meta"
)

// The decode benchmarks all read the same 5 KB pod (testdata/pod.json) and
// report MB/s of JSON. Run: go test -run '^$' -bench . -benchmem ./meta/

func BenchmarkPeekMeta(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := meta.PeekMeta(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeUnstructured(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := meta.Decode[*meta.Unstructured](data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePartialObjectMetadata(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := meta.Decode[*meta.PartialObjectMetadata](data); err != nil {
			b.Fatal(err)
		}
	}
}

// plainPartial is PartialObjectMetadata without its own decoder: what
// encoding/json alone does with the same declaration.
type plainPartial struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

// BenchmarkJSONUnmarshalPartialObjectMetadata is the baseline PeekMeta and
// the hand-written decoder are measured against: encoding/json decoding
// the metadata of the pod.
func BenchmarkJSONUnmarshalPartialObjectMetadata(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var p plainPartial
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONUnmarshalIntoPartialObjectMetadata goes through
// json.Unmarshal, which checks the input once before handing it to
// PartialObjectMetadata's own decoder (meta.Decode skips that pass).
func BenchmarkJSONUnmarshalIntoPartialObjectMetadata(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var p meta.PartialObjectMetadata
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONUnmarshalTypedPod(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := meta.Decode[*Pod](data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONUnmarshalMap(b *testing.B) {
	data := podJSON(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalUnstructured(b *testing.B) {
	data := podJSON(b)
	u, err := meta.Decode[*meta.Unstructured](data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := u.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnstructuredFieldString(b *testing.B) {
	u, err := meta.Decode[*meta.Unstructured](podJSON(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := u.FieldString("spec", "nodeName"); !ok {
			b.Fatal("no spec.nodeName")
		}
	}
}
