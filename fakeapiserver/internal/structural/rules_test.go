package structural

import (
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFieldPathValid: a rule's fieldPath walks properties by dots and
// map keys (or properties) by single-quoted brackets; anything else, or
// a step the schema does not have, is not a path.
func TestFieldPathValid(t *testing.T) {
	doc, err := jsonv.Parse([]byte(`{"type":"object","properties":{"a":{"type":"object","properties":{"b.c":{"type":"string"},"it's":{"type":"string"}}},` +
		`"m":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}},"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`))
	require.NoError(t, err)
	for fp, want := range map[string]bool{
		".a":             true,
		".a['b.c']":      true,
		`.a['it\'s']`:    true,
		".m.any":         true,
		".m['k'].x":      true,
		".m['k'].y":      false,
		".a.b":           false,
		"a":              false,
		".":              false,
		".a[b]":          false,
		".a['b.c'":       false,
		".free.anything": false,
		"..a":            false,
	} {
		assert.Equal(t, want, fieldPathValid(&doc.Value, fp), fp)
	}
}

// TestRulesNone: a schema that keeps every rule has no errors, and what
// is not a JSON object is left to the structural checks.
func TestRulesNone(t *testing.T) {
	assert.Empty(t, Rules([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map",`+
		`"x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}},`+
		`"s":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},"m":{"type":"object","x-kubernetes-map-type":"atomic","additionalProperties":{"type":"string"}}},`+
		`"x-kubernetes-validations":[{"rule":"self.l.size() < 3","message":"short","reason":"FieldValueForbidden","fieldPath":".l"}]}}}`), "s"))
	assert.Nil(t, Rules([]byte(`[1]`), "s"))
	assert.Nil(t, Rules([]byte(`{`), "s"))
}
