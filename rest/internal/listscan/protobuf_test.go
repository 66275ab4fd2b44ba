package listscan

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
)

// protoList builds a protobuf ConfigMapList body with n items.
func protoList(t testing.TB, n int) ([]byte, [][]byte) {
	t.Helper()
	var items [][]byte
	md, err := kubeproto.EncodeMessage("v1", "ConfigMapList", []byte(`{"metadata":{"resourceVersion":"77","continue":"next"}}`))
	require.NoError(t, err)
	msg := append([]byte(nil), md...)
	for i := range n {
		item, err := kubeproto.EncodeMessage("v1", "ConfigMap", []byte(`{"metadata":{"name":"cm-`+string(rune('a'+i%26))+`","namespace":"ns"},"data":{"k":"v"}}`))
		require.NoError(t, err)
		items = append(items, item)
		msg = kubeproto.AppendListItem(msg, item)
	}
	return kubeproto.AppendEnvelope(nil, "v1", "ConfigMapList", msg), items
}

func TestScanProtobuf(t *testing.T) {
	body, items := protoList(t, 30)
	var got [][]byte
	tm, lm, err := ScanProtobuf(iotest.OneByteReader(bytes.NewReader(body)), MaxItemSize, func(list meta.TypeMeta, item []byte) error {
		assert.Equal(t, meta.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"}, list)
		got = append(got, append([]byte(nil), item...))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, meta.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"}, tm)
	assert.Equal(t, "77", lm.ResourceVersion)
	assert.Equal(t, "next", lm.Continue)
	assert.Equal(t, items, got)
}

func TestScanProtobufErrors(t *testing.T) {
	body, _ := protoList(t, 3)
	noop := func(meta.TypeMeta, []byte) error { return nil }
	_, _, err := ScanProtobuf(bytes.NewReader(body[:len(body)-7]), MaxItemSize, noop)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, _, err = ScanProtobuf(bytes.NewReader([]byte(`{"kind":"List"}`)), MaxItemSize, noop)
	assert.ErrorIs(t, err, ErrNotAList)
	_, _, err = ScanProtobuf(bytes.NewReader(body), 10, noop)
	assert.ErrorIs(t, err, ErrItemTooLarge)
	// A length far past the body costs no more than the body.
	huge := append(append([]byte(nil), kubeproto.Magic...), 0x0a, 0x00, 0x12, 0xff, 0xff, 0x3f, 0x12, 0xf0, 0xff, 0x3f)
	_, _, err = ScanProtobuf(bytes.NewReader(huge), MaxItemSize, noop)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

// FuzzScanProtobuf feeds arbitrary bodies: no panic, and every item
// handed over is a field that lies inside the body.
func FuzzScanProtobuf(f *testing.F) {
	body, _ := protoList(f, 3)
	f.Add(body)
	f.Add(body[:20])
	f.Add(append(append([]byte(nil), kubeproto.Magic...), 0x12, 0x02, 0x12, 0x00))
	f.Fuzz(func(t *testing.T, data []byte) {
		total := 0
		_, _, _ = ScanProtobuf(bytes.NewReader(data), 1<<16, func(_ meta.TypeMeta, item []byte) error {
			total += len(item)
			return nil
		})
		assert.LessOrEqual(t, total, len(data))
	})
}
