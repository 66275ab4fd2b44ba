package meta_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/meta"
)

type goodInline struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

type goodUntaggedType struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata,omitempty"`
}

type untaggedObjectMeta struct {
	meta.TypeMeta `json:",inline"`
	meta.ObjectMeta
}

type wrongObjectMetaTag struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"meta"`
}

type taggedTypeMeta struct {
	meta.TypeMeta   `json:"typeMeta"`
	meta.ObjectMeta `json:"metadata"`
}

type namedTypeMeta struct {
	meta.TypeMeta   `json:"type,inline"`
	meta.ObjectMeta `json:"metadata"`
}

// noTypeMeta gets GetTypeMeta from a named field's method, not an embedding.
type noTypeMeta struct {
	T               meta.TypeMeta `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

func (n *noTypeMeta) GetTypeMeta() *meta.TypeMeta { return &n.T }

type pointerEmbeds struct {
	*meta.TypeMeta   `json:",inline"`
	*meta.ObjectMeta `json:"metadata"`
}

func TestCheckType(t *testing.T) {
	assert.NoError(t, meta.CheckType[*goodInline]())
	assert.NoError(t, meta.CheckType[*goodUntaggedType]())
	assert.NoError(t, meta.CheckType[*Pod]())
	assert.NoError(t, meta.CheckType[*meta.Unstructured]())
	assert.NoError(t, meta.CheckType[*meta.PartialObjectMetadata]())

	assert.ErrorContains(t, meta.CheckType[*untaggedObjectMeta](), "embedded ObjectMeta has tag \"\"; it must be `json:\"metadata\"`")
	assert.ErrorContains(t, meta.CheckType[*wrongObjectMetaTag](), "embedded ObjectMeta has tag \"meta\"")
	assert.ErrorContains(t, meta.CheckType[*taggedTypeMeta](), "embedded TypeMeta has tag \"typeMeta\"; it must be `json:\",inline\"`")
	assert.ErrorContains(t, meta.CheckType[*namedTypeMeta](), "embedded TypeMeta has tag \"type,inline\"")
	assert.ErrorContains(t, meta.CheckType[*noTypeMeta](), "does not embed meta.TypeMeta directly")
	assert.ErrorContains(t, meta.CheckType[pointerEmbeds](), "an Object must be a pointer to a struct")
	assert.ErrorContains(t, meta.CheckType[*pointerEmbeds](), "does not embed meta.TypeMeta directly")
}

// The mistake CheckType exists for: an untagged ObjectMeta decodes as empty.
func TestUntaggedObjectMetaDecodesEmpty(t *testing.T) {
	obj, err := meta.Decode[*untaggedObjectMeta]([]byte(`{"kind":"Pod","metadata":{"name":"a","namespace":"b"}}`))
	assert.NoError(t, err)
	assert.Empty(t, obj.Name, "if this fails, encoding/json changed and CheckType may be too strict")
}
