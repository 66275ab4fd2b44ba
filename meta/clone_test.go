package meta_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestCloneTypedObject(t *testing.T) {
	orig, err := meta.Decode[*Pod](podJSON(t))
	require.NoError(t, err)
	before := marshal(t, orig)

	c, err := meta.Clone(orig)
	require.NoError(t, err)
	assert.Equal(t, before, marshal(t, c))
	c.Labels["app"] = "x"
	c.Spec.Containers[0].Image = "other"
	*c.OwnerReferences[0].Controller = false
	assert.Equal(t, before, marshal(t, orig), "changing the clone changed the original")

	var nilPod *Pod
	c, err = meta.Clone(nilPod)
	require.NoError(t, err)
	assert.Nil(t, c)
}

func TestCloneUsesDeepCopy(t *testing.T) {
	u, err := meta.Decode[*meta.Unstructured](podJSON(t))
	require.NoError(t, err)
	c, err := meta.Clone(u)
	require.NoError(t, err)
	c.Labels["app"] = "x"
	assert.Equal(t, "web", u.Labels["app"])
	assert.Equal(t, marshal(t, u.ObjectMeta.OwnerReferences), marshal(t, c.ObjectMeta.OwnerReferences))

	p, err := meta.Decode[*meta.PartialObjectMetadata](podJSON(t))
	require.NoError(t, err)
	pc, err := meta.Clone(p)
	require.NoError(t, err)
	assert.Equal(t, p, pc)
	pc.Annotations["x"] = "y"
	pc.ManagedFields[0].Manager = "changed"
	assert.NotContains(t, p.Annotations, "x")
	assert.Equal(t, "kube-controller-manager", p.ManagedFields[0].Manager)
	var nilP *meta.PartialObjectMetadata
	assert.Nil(t, nilP.DeepCopy())
}

// unencodable cannot go through JSON.
type unencodable struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	C               chan int `json:"c"`
}

func TestCloneReportsEncodeErrors(t *testing.T) {
	_, err := meta.Clone(&unencodable{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "b"}, C: make(chan int)})
	assert.ErrorContains(t, err, "clone unencodable b/a")
}

func TestPartialObjectMetadata(t *testing.T) {
	var pretty = []byte(`{
	  "kind": "Pod", "apiVersion": "v1",
	  "metadata": {"name": "a", "namespace": "b", "selfLink": "/dropped",
	               "managedFields": [ {"manager": "m", "fieldsV1": {"f:a": {} } } ]},
	  "spec": {"anything": [1, 2, 3]}
	}`)
	p, err := meta.Decode[*meta.PartialObjectMetadata](pretty)
	require.NoError(t, err)
	assert.Equal(t, "b/a", meta.Key(p))
	assert.Equal(t, `{"f:a":{}}`, p.ManagedFields[0].FieldsV1.String(), "fieldsV1 is kept compact")
	assert.Equal(t, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"b","managedFields":[{"manager":"m","fieldsV1":{"f:a":{}}}]}}`, marshal(t, p))

	// Decoding replaces everything; null changes nothing.
	require.NoError(t, json.Unmarshal([]byte(`{"metadata":{"name":"c"}}`), p))
	assert.Equal(t, meta.PartialObjectMetadata{ObjectMeta: meta.ObjectMeta{Name: "c"}}, *p)
	require.NoError(t, json.Unmarshal([]byte(`null`), p))
	assert.Equal(t, "c", p.Name)

	// Errors leave it unchanged.
	assert.Error(t, p.UnmarshalJSON([]byte(`{"metadata":{"labels":{"a":1}}}`)))
	assert.Error(t, p.UnmarshalJSON([]byte(`[]`)))
	assert.Error(t, p.UnmarshalJSON([]byte(`{"spec":}`)))
	assert.Equal(t, "c", p.Name)
}
