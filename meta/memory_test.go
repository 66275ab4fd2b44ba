package meta_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// podVariants returns n copies of the test pod with distinct names, uids
// and resourceVersions, as a cache would hold them.
func podVariants(t testing.TB, n int) [][]byte {
	data := podJSON(t)
	out := make([][]byte, n)
	for i := range out {
		d := bytes.Replace(data, []byte(`"web-7d9f8c6b5-x2k4q"`), fmt.Appendf(nil, `"web-7d9f8c6b5-%05d"`, i), 1)
		d = bytes.Replace(d, []byte(`"3f2a1c9e-8b7d-4e6f-a5c4-2d1e0f9a8b7c"`), fmt.Appendf(nil, `"3f2a1c9e-8b7d-4e6f-a5c4-2d1e0f%06d"`, i), 1)
		d = bytes.Replace(d, []byte(`"4827163"`), fmt.Appendf(nil, `"%d"`, 5000000+i), 1)
		out[i] = d
	}
	return out
}

// heapPerObject reports the heap that stays allocated per object after
// decoding every input with decode.
func heapPerObject(inputs [][]byte, decode func([]byte) (any, error)) (float64, error) {
	objs := make([]any, len(inputs))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i, in := range inputs {
		o, err := decode(in)
		if err != nil {
			return 0, err
		}
		objs[i] = o
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(objs)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(inputs)), nil
}

// TestUnstructuredMemory measures what holding a realistic 5 KB pod costs,
// against the tree of maps a generic decoder builds.
func TestUnstructuredMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap; skipped in -short mode")
	}
	const n = 800
	inputs := podVariants(t, n)
	size := float64(len(inputs[0]))

	unstructured, err := heapPerObject(inputs, func(b []byte) (any, error) { return meta.Decode[*meta.Unstructured](b) })
	require.NoError(t, err)
	partial, err := heapPerObject(inputs, func(b []byte) (any, error) { return meta.Decode[*meta.PartialObjectMetadata](b) })
	require.NoError(t, err)
	tree, err := heapPerObject(inputs[:200], func(b []byte) (any, error) {
		var m map[string]any
		err := json.Unmarshal(b, &m)
		return m, err
	})
	require.NoError(t, err)

	t.Logf("pod JSON %.0f bytes; heap per object: Unstructured %.0f B (%.2fx), PartialObjectMetadata %.0f B (%.2fx), map[string]any %.0f B (%.2fx)",
		size, unstructured, unstructured/size, partial, partial/size, tree, tree/size)
	assert.Less(t, unstructured, 1.6*size, "Unstructured should cost well under 2x its JSON")
	assert.Less(t, unstructured, tree/3, "Unstructured should cost far less than a tree of maps")
	// The pods differ only in name, uid and resourceVersion, so their
	// managedFields sets (1,135 bytes of JSON each) are stored once.
	assert.Less(t, partial, 0.35*size, "PartialObjectMetadata should hold its managedFields sets shared, not per object")
}
