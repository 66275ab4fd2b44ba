package openapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuiltinKinds(t *testing.T) {
	d := Builtin()
	for _, g := range []GVK{
		{Version: "v1", Kind: "Pod"}, {Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Service"},
		{Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "batch", Version: "v1", Kind: "CronJob"},
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
		{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
	} {
		name, s, ok := d.ForKind(g)
		require.True(t, ok, "ForKind(%v)", g)
		assert.NotEmpty(t, name)
		assert.True(t, s.IsStruct(), "%v is an object with fields", g)
	}
	assert.Greater(t, len(d.Kinds()), 150)
	_, _, ok := d.ForKind(GVK{Group: "example.com", Version: "v1", Kind: "Widget"})
	assert.False(t, ok)
}

func TestResolveKeepsTheExtensionsBesideAReference(t *testing.T) {
	d := Builtin()
	_, spec, _ := d.ForKind(GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	strategy := d.Field(d.Field(spec, "spec"), "strategy")
	require.NotNil(t, strategy)
	assert.Equal(t, "retainKeys", strategy.PatchStrategy, "the property's patch strategy")
	assert.True(t, strategy.DefaultEmpty, "strategy is a struct the Go type never omits")
	assert.NotNil(t, strategy.Property("rollingUpdate"), "and the definition's fields")

	containers := d.Field(d.Field(d.Field(d.Field(spec, "spec"), "template"), "spec"), "containers")
	require.NotNil(t, containers)
	assert.Equal(t, "map", containers.ListType)
	assert.Equal(t, []string{"name"}, containers.ListMapKeys)
	assert.Equal(t, "name", containers.PatchMergeKey)
	item := d.Elem(containers)
	require.NotNil(t, item)
	assert.NotNil(t, item.Property("image"))

	labels := d.Field(d.Field(spec, "metadata"), "labels")
	require.NotNil(t, labels)
	assert.True(t, labels.IsMap())
	assert.Equal(t, "string", d.Field(labels, "any-key").Type, "a map's values")
	assert.Nil(t, d.Field(spec, "nope"))
}

func TestNewDefinitionsRefusesDanglingReferences(t *testing.T) {
	_, err := NewDefinitions(map[string]*Schema{"a": {Type: "object", Properties: []Property{{"b", &Schema{Ref: "missing"}}}}})
	assert.ErrorContains(t, err, `missing definition "missing"`)
}

func TestResolveStopsOnReferenceLoops(t *testing.T) {
	d, err := NewDefinitions(map[string]*Schema{"a": {Ref: "b"}, "b": {Ref: "a"}})
	require.NoError(t, err)
	assert.NotPanics(t, func() { d.Resolve(&Schema{Ref: "a"}) })
}

func TestFromJSONSchema(t *testing.T) {
	s, err := FromJSONSchema([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],"items":{"type":"object","properties":{"port":{"type":"integer"},"protocol":{"type":"string","default":"TCP"}}}},
		"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},
		"labels":{"type":"object","additionalProperties":{"type":"string"}},
		"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}`))
	require.NoError(t, err)
	d := Builtin()
	assert.NotNil(t, d.Field(s, "metadata").Property("labels"), "metadata is ObjectMeta")
	spec := d.Field(s, "spec")
	ports := d.Field(spec, "ports")
	assert.Equal(t, "map", ports.ListType)
	assert.Equal(t, []string{"port"}, ports.ListMapKeys)
	assert.Equal(t, `"TCP"`, d.Field(d.Elem(ports), "protocol").Default)
	assert.Equal(t, "set", d.Field(spec, "tags").ListType)
	assert.True(t, d.Field(spec, "labels").IsMap())
	assert.True(t, d.Field(spec, "free").PreserveUnknownFields)

	_, err = FromJSONSchema([]byte(`{"type":`))
	assert.Error(t, err)
	deep := `{"type":"string"}`
	for i := 0; i < maxSchemaDepth+2; i++ {
		deep = `{"type":"object","properties":{"a":` + deep + `}}`
	}
	_, err = FromJSONSchema([]byte(deep))
	assert.ErrorContains(t, err, "nested deeper")
}

// FuzzFromJSONSchema feeds arbitrary CRD schemas (network input) through
// the converter: no panic; a result resolves field by field.
func FuzzFromJSONSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"spec":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"}}}`))
	f.Add([]byte(`{"additionalProperties":true}`))
	f.Add([]byte(`{"properties":{"a":{"additionalProperties":{"type":"integer","default":1}}}}`))
	d := Builtin()
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := FromJSONSchema(raw)
		if err != nil {
			return
		}
		for _, p := range s.Properties {
			_ = d.Field(s, p.Name)
			_ = d.Elem(d.Field(s, p.Name))
		}
	})
}
