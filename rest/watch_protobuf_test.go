package rest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// protobufStream writes a protobuf watch stream: an ADDED ConfigMap, a
// BOOKMARK and an ERROR Status.
func protobufStream(t testing.TB) []byte {
	t.Helper()
	cm, err := kubeproto.Encode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"5"}}`))
	require.NoError(t, err)
	st, err := kubeproto.Encode([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}`))
	require.NoError(t, err)
	out := kubeproto.AppendWatchFrame(nil, "ADDED", cm)
	out = kubeproto.AppendWatchFrame(out, "BOOKMARK", cm)
	return kubeproto.AppendWatchFrame(out, "ERROR", st)
}

func TestProtobufFrames(t *testing.T) {
	stream := protobufStream(t)
	f := newProtobufFrames(iotest.OneByteReader(bytes.NewReader(stream)), 0)
	var types []watch.EventType
	for {
		fr, err := f.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		types = append(types, fr.Type)
		switch fr.Type {
		case watch.Error:
			assert.Contains(t, string(fr.Object), `"code":410`, "the Status as JSON")
		default:
			cm, err := meta.DecodeProtobufBody[*meta.PartialObjectMetadata](fr.Object)
			require.NoError(t, err)
			assert.Equal(t, "a", cm.Name)
		}
	}
	assert.Equal(t, []watch.EventType{watch.Added, watch.Bookmark, watch.Error}, types)

	_, err := newProtobufFrames(bytes.NewReader(stream[:len(stream)-3]), 0).skipAll()
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = newProtobufFrames(bytes.NewReader(stream), 10).Next()
	assert.ErrorIs(t, err, watch.ErrFrameTooLarge)
	var bad *watch.SyntaxError
	_, err = newProtobufFrames(bytes.NewReader([]byte{0, 0, 0, 2, 0x07, 0x00}), 0).Next()
	assert.ErrorAs(t, err, &bad)
}

// skipAll reads frames until an error; io.EOF is returned as nil.
func (p *protobufFrames) skipAll() (int, error) {
	n := 0
	for {
		_, err := p.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// FuzzProtobufFrames reads arbitrary bytes as a protobuf watch stream: no
// panic, and the frames handed out fit in the input.
func FuzzProtobufFrames(f *testing.F) {
	stream := protobufStream(f)
	f.Add(stream)
	f.Add(stream[:9])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newProtobufFrames(bytes.NewReader(data), 1<<16)
		total := 0
		for {
			fr, err := p.Next()
			if err != nil {
				_, again := p.Next()
				assert.Equal(t, err, again, "errors are sticky")
				break
			}
			total += len(fr.Object)
			if fr.Type != watch.Error {
				_, _ = meta.DecodeProtobufBody[*meta.PartialObjectMetadata](fr.Object)
			}
		}
		assert.LessOrEqual(t, total, 2*len(data)+1024)
	})
}
