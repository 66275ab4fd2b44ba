package structural

import (
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// FuzzSchema feeds Parse arbitrary schemas and, when one parses, runs
// Default and Validate of an arbitrary object against it: bad input is an
// error, never a panic.
func FuzzSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"default":3},"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object"}}}}`), []byte(`{"a":0,"l":[{"k":1},{"k":1}]}`))
	f.Add([]byte(`{"type":"string","pattern":"(","enum":["a"]}`), []byte(`"b"`))
	f.Add([]byte(`{"properties":{"s":{"type":"array","x-kubernetes-list-type":"set","maxItems":1,"items":{"type":"string","format":"date-time"}}}}`), []byte(`{"s":["x","x"]}`))
	f.Fuzz(func(t *testing.T, schema, object []byte) {
		s, err := Parse(schema)
		if err != nil {
			return
		}
		res, err := jsonv.Parse(object)
		if err != nil || res.Value.Kind != jsonv.Object {
			return
		}
		old := res.Value.Clone()
		rest := DefaultMembers(res.Value.Obj, s)
		_ = Validate(rest, nil, s)
		_ = Validate(rest, old.Obj, s)
	})
}

// FuzzProblems feeds the structural checks and the rules of CRD schemas
// arbitrary schemas, junctors nested in junctors among them: an answer,
// never a panic or a hang.
func FuzzProblems(f *testing.F) {
	f.Add([]byte(`{"type":"object","anyOf":[{"properties":{"x":{"not":{"allOf":[{"type":"string"}]}}}}],"properties":{"p":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"nullable":true}]}}}`))
	f.Add([]byte(`{"type":"object","oneOf":[{"items":{"properties":{"metadata":{}}}}],"properties":{"l":{"type":"array","items":{"type":"string","not":{"x-kubernetes-validations":[{"rule":"true"}]}}}}}`))
	f.Add([]byte(`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","a"],"items":{"type":"object","properties":{"a":{"type":"object"}}}},"s":{"type":"object","x-kubernetes-validations":[{"rule":"true","fieldPath":".m['a\\'b']"}]}}}`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		_ = Problems(schema, "s")
		_ = Rules(schema, "s")
		_ = StatusRootRules(schema, "s")
	})
}
