package bench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/bench"
	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
)

// BenchmarkDecodeProtobuf decodes the suite's pod from its protobuf
// message (what a LIST page's item holds) each way an informer can hold
// it, beside the same decodes of its JSON, so the two wire formats compare
// per object:
//
//	go test -run '^$' -bench 'Decode(Protobuf)?/' -benchmem ./bench/
func BenchmarkDecodeProtobuf(b *testing.B) {
	js := podJSON(b)
	msg, err := kubeproto.EncodeMessage("v1", "Pod", js)
	require.NoError(b, err)
	run := func(name string, decode func([]byte) error) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if err := decode(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	run("typed", func(d []byte) error { _, err := meta.DecodeProtobuf[*bench.Pod]("v1", "Pod", d); return err })
	run("metadata", func(d []byte) error {
		_, err := meta.DecodeProtobuf[*meta.PartialObjectMetadata]("v1", "Pod", d)
		return err
	})
	run("unstructured", func(d []byte) error {
		_, err := meta.DecodeProtobuf[*meta.Unstructured]("v1", "Pod", d)
		return err
	})
	// The JSON route: the whole object converted by kubeproto, then
	// decoded as JSON (what DecodeProtobuf falls back to).
	run("unstructured-converted", func(d []byte) error {
		js, err := kubeproto.DecodeMessage("v1", "Pod", d, true)
		if err != nil {
			return err
		}
		_, err = meta.Decode[*meta.Unstructured](js)
		return err
	})
	run("peek", func(d []byte) error { _, err := meta.PeekProtobuf(d); return err })
}
