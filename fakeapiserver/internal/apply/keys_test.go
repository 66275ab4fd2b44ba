package apply

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// TestMissingKeyFieldsAndRawExtensions checks a ResourceClaim status
// written as the real kube-apiserver v1.37.2 records it: a device status
// without its optional shareID key field is keyed by the other three,
// and its data (a RawExtension) is owned whole.
func TestMissingKeyFieldsAndRawExtensions(t *testing.T) {
	typ, ok := ForKind(openapi.Builtin(), openapi.GVK{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"})
	require.True(t, ok)
	obj := parse(t, `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},
		"status":{"devices":[{"driver":"d.example.com","pool":"p","device":"dev0","data":{"k":{"v":1}}}]}}`)
	mf := Update(jsonv.Value{}, obj, typ, Request{Manager: "m", APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim", Now: now})
	assert.JSONEq(t, `[{"manager":"m","operation":"Update","apiVersion":"resource.k8s.io/v1","time":"2025-01-02T03:04:05Z","fieldsType":"FieldsV1",
		"fieldsV1":{"f:status":{"f:devices":{".":{},"k:{\"device\":\"dev0\",\"driver\":\"d.example.com\",\"pool\":\"p\"}":{".":{},"f:data":{},"f:device":{},"f:driver":{},"f:pool":{}}}}}}]`, string(mf))

}
