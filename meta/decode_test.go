package meta_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestDecodeItemWithAndWithoutTypeMeta(t *testing.T) {
	// Items of a built-in list carry no kind or apiVersion.
	bare := []byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"spec":{"nodeName":"n1"}}`)
	// Items of a custom-resource list, and watch event objects, do.
	typed := []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"spec":{"nodeName":"n1"}}`)

	p, err := meta.Decode[*Pod](bare)
	require.NoError(t, err)
	assert.Equal(t, meta.TypeMeta{}, p.TypeMeta)
	assert.Equal(t, "ns/a", meta.Key(p))
	assert.Equal(t, "n1", p.Spec.NodeName)

	p, err = meta.Decode[*Pod](typed)
	require.NoError(t, err)
	assert.Equal(t, meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, p.TypeMeta)
	assert.Equal(t, "5", p.ResourceVersion)

	for _, data := range [][]byte{bare, typed} {
		u, err := meta.Decode[*meta.Unstructured](data)
		require.NoError(t, err)
		assert.Equal(t, "ns/a", meta.Key(u))
		node, ok := u.FieldString("spec", "nodeName")
		assert.True(t, ok)
		assert.Equal(t, "n1", node)

		m, err := meta.Decode[*meta.PartialObjectMetadata](data)
		require.NoError(t, err)
		assert.Equal(t, "ns/a", meta.Key(m))
		assert.Equal(t, "5", m.ResourceVersion)
	}
}

func TestDecodeClusterScopedKey(t *testing.T) {
	n, err := meta.Decode[*meta.PartialObjectMetadata]([]byte(`{"kind":"Node","apiVersion":"v1","metadata":{"name":"worker-1"}}`))
	require.NoError(t, err)
	assert.Equal(t, "worker-1", meta.Key(n))
}

// Real servers send bookmarks as an empty object of the watched kind with
// zero values written out; every way of decoding must accept them.
func TestDecodeBookmarkShapes(t *testing.T) {
	shapes := map[string]string{
		"minimal":  `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746"}}`,
		"zeroes":   `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746","creationTimestamp":null},"spec":{"containers":null},"status":{}}`,
		"end-mark": `{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}`,
	}
	for name, data := range shapes {
		t.Run(name, func(t *testing.T) {
			p, err := meta.Decode[*Pod]([]byte(data))
			require.NoError(t, err)
			assert.Equal(t, "12746", p.ResourceVersion)
			assert.True(t, p.CreationTimestamp.IsZero())
			assert.Nil(t, p.Spec.Containers)

			u, err := meta.Decode[*meta.Unstructured]([]byte(data))
			require.NoError(t, err)
			assert.Equal(t, "12746", u.ResourceVersion)
			assert.True(t, u.CreationTimestamp.IsZero())

			m, err := meta.Decode[*meta.PartialObjectMetadata]([]byte(data))
			require.NoError(t, err)
			assert.Equal(t, "12746", m.ResourceVersion)
			assert.Equal(t, name == "end-mark", m.Annotations["k8s.io/initial-events-end"] == "true")

			peek, err := meta.PeekMeta([]byte(data))
			require.NoError(t, err)
			assert.Equal(t, "12746", peek.ResourceVersion)
		})
	}
}

func TestDecodeErrorsNameTheType(t *testing.T) {
	_, err := meta.Decode[*Pod]([]byte(`{"metadata":{"name":5}}`))
	assert.ErrorContains(t, err, "decode Pod:")
	_, err = meta.Decode[*Pod]([]byte(`{"metadata":`))
	assert.ErrorContains(t, err, "decode Pod:")

	_, err = meta.Decode[*meta.Unstructured]([]byte(`{"metadata":{"name":5}}`))
	var te *meta.TypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "metadata.name", te.Field)
	assert.ErrorContains(t, err, "decode Unstructured:")
}

func TestListDecode(t *testing.T) {
	builtin := []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10245","continue":"tok","remainingItemCount":753},
	  "items":[{"metadata":{"name":"a","namespace":"ns"}},{"metadata":{"name":"b","namespace":"ns"}}]}`)
	var l meta.List[*Pod]
	require.NoError(t, json.Unmarshal(builtin, &l))
	assert.Equal(t, "10245", l.ResourceVersion)
	assert.Equal(t, "tok", l.Continue)
	require.NotNil(t, l.RemainingItemCount)
	assert.EqualValues(t, 753, *l.RemainingItemCount)
	require.Len(t, l.Items, 2)
	assert.Empty(t, l.Items[0].Kind)
	assert.Equal(t, "Pod", l.ItemKind())
	l.FillItemTypeMeta()
	assert.Equal(t, meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, l.Items[1].TypeMeta)

	// Custom-resource items carry their own TypeMeta, which is kept.
	crd := []byte(`{"kind":"WidgetList","apiVersion":"ex.com/v1","metadata":{"resourceVersion":"3","continue":""},
	  "items":[{"kind":"Widget","apiVersion":"ex.com/v1beta1","metadata":{"name":"w"},"spec":{"size":3}},null]}`)
	var ul meta.List[*meta.Unstructured]
	require.NoError(t, json.Unmarshal(crd, &ul))
	require.Len(t, ul.Items, 2)
	assert.Nil(t, ul.Items[1])
	ul.FillItemTypeMeta() // must not trip over the nil item
	assert.Equal(t, "ex.com/v1beta1", ul.Items[0].APIVersion)
	size, ok := ul.Items[0].Field("spec", "size")
	assert.True(t, ok)
	assert.Equal(t, json.Number("3"), size)

	var pl meta.PartialObjectMetadataList
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},
	  "items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"x","labels":{"a":"b"}}}]}`), &pl))
	assert.Equal(t, "PartialObjectMetadata", pl.ItemKind())
	assert.Equal(t, "b", pl.Items[0].Labels["a"])

	other := meta.List[*Pod]{TypeMeta: meta.TypeMeta{Kind: "List"}}
	assert.Equal(t, "", other.ItemKind())
	other = meta.List[*Pod]{TypeMeta: meta.TypeMeta{Kind: "Things"}}
	assert.Equal(t, "", other.ItemKind())
}
