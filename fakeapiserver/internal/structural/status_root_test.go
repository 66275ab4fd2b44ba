package structural

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatusRootRulesMatchRealServer: testdata/status_root.real.json
// holds schemas refused at the root with the status subresource on and
// the real kube-apiserver v1.37.2's error for each, the whole schema
// printed as its internal type (floats, integers, sorted maps, escaped
// strings, every nested kind of schema).
func TestStatusRootRulesMatchRealServer(t *testing.T) {
	data, err := os.ReadFile("testdata/status_root.real.json")
	require.NoError(t, err)
	var rows []struct{ Schema, Field, Message string }
	require.NoError(t, json.Unmarshal(data, &rows))
	require.NotEmpty(t, rows)
	for _, row := range rows {
		errs := StatusRootRules([]byte(row.Schema), "spec.validation.openAPIV3Schema")
		require.Len(t, errs, 1, row.Schema)
		assert.Equal(t, row.Field+": "+row.Message, errs[0].String(), row.Schema)
	}
}

// TestStatusRootRulesAllowed: the keywords allowed at the root, and a
// type of object, are no error; a type other than object is the one
// error, found before a refused keyword later in the internal order.
func TestStatusRootRulesAllowed(t *testing.T) {
	assert.Empty(t, StatusRootRules([]byte(`{"type":"object","description":"d","title":"t","required":["spec"],"nullable":false,`+
		`"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"true"}],"externalDocs":{"url":"u"},"example":{},"properties":{"spec":{"type":"object"}}}`), "s"))
	errs := StatusRootRules([]byte(`{"type":"array","anyOf":[{}],"items":{"type":"string"}}`), "s")
	require.Len(t, errs, 1)
	assert.Equal(t, `s.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`, errs[0].String())
	assert.Nil(t, StatusRootRules([]byte(`[`), "s"))
}
