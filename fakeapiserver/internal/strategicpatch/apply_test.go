package strategicpatch

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// mapSchema is a Schema given as a table of dotted paths.
type mapSchema map[string]PatchMeta

func (m mapSchema) Lookup(path []string) PatchMeta { return m[strings.Join(path, ".")] }

var podLike = mapSchema{
	"spec.containers":            {Strategy: Merge, MergeKey: "name"},
	"spec.containers.env":        {Strategy: Merge, MergeKey: "name"},
	"spec.containers.ports":      {Strategy: Merge, MergeKey: "containerPort"},
	"spec.volumes":               {Strategy: Merge, MergeKey: "name", RetainKeys: true},
	"metadata.finalizers":        {Strategy: Merge},
	"spec.selector":              {Strategy: Replace},
	"spec.template.spec.volumes": {Strategy: Merge, MergeKey: "name"},
}

func TestApplyTable(t *testing.T) {
	cases := []struct {
		name, original, patch, want string
	}{
		{"maps merge and null deletes",
			`{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"b":null,"c":"3"}}}`,
			`{"metadata":{"labels":{"a":"1","c":"3"}}}`},
		{"containers merge by name",
			`{"spec":{"containers":[{"name":"a","image":"x:1"},{"name":"b","image":"y:1"}]}}`,
			`{"spec":{"containers":[{"name":"b","image":"y:2"}]}}`,
			`{"spec":{"containers":[{"name":"a","image":"x:1"},{"name":"b","image":"y:2"}]}}`},
		{"a new container goes first unless the order is given",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`, `{"spec":{"containers":[{"name":"c"}]}}`,
			`{"spec":{"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}}`},
		{"env merges by name inside a container",
			`{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}}`,
			`{"spec":{"containers":[{"name":"a","env":[{"name":"Y","value":"two"}]}]}}`,
			`{"spec":{"containers":[{"name":"a","env":[{"name":"X","value":"1"},{"name":"Y","value":"two"}]}]}}`},
		{"ports merge by containerPort, numerically",
			`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80},{"containerPort":443}]}]}}`,
			`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80.0,"name":"http"}]}]}}`,
			`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"},{"containerPort":443}]}]}}`},
		{"lists without a strategy are replaced (tolerations)",
			`{"spec":{"tolerations":[{"key":"a"},{"key":"b"}]}}`, `{"spec":{"tolerations":[{"key":"c"}]}}`,
			`{"spec":{"tolerations":[{"key":"c"}]}}`},
		{"a replace strategy replaces a map",
			`{"spec":{"selector":{"matchLabels":{"a":"1"}}}}`, `{"spec":{"selector":{"matchExpressions":[]}}}`,
			`{"spec":{"selector":{"matchExpressions":[]}}}`},
		{"finalizers merge as a set",
			`{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"finalizers":["b","c"]}}`,
			`{"metadata":{"finalizers":["a","b","c"]}}`},
		{"$deleteFromPrimitiveList removes values",
			`{"metadata":{"finalizers":["a","b","a"]}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`,
			`{"metadata":{"finalizers":["b"]}}`},
		{"$setElementOrder orders a primitive list",
			`{"metadata":{"finalizers":["a","b"]}}`, `{"metadata":{"$setElementOrder/finalizers":["b","c","a"],"finalizers":["c"]}}`,
			`{"metadata":{"finalizers":["b","c","a"]}}`},
		{"$setElementOrder orders containers",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}}`,
			`{"spec":{"containers":[{"name":"b"},{"name":"a"}]}}`},
		{"$patch: delete removes an item by key",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`, `{"spec":{"containers":[{"name":"a","$patch":"delete"}]}}`,
			`{"spec":{"containers":[{"name":"b"}]}}`},
		{"$patch: replace in a list replaces it",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`, `{"spec":{"containers":[{"$patch":"replace"},{"name":"z"}]}}`,
			`{"spec":{"containers":[{"name":"z"}]}}`},
		{"$patch: replace in a map replaces it",
			`{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"$patch":"replace","b":"2"}}}`,
			`{"metadata":{"labels":{"b":"2"}}}`},
		{"$patch: delete in a map empties it",
			`{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"$patch":"delete"}}}`,
			`{"metadata":{"labels":{}}}`},
		{"$retainKeys drops the other members of a union",
			`{"spec":{"volumes":[{"name":"v","configMap":{"name":"c"}}]}}`,
			`{"spec":{"volumes":[{"$retainKeys":["name","secret"],"name":"v","secret":{"secretName":"s"}}]}}`,
			`{"spec":{"volumes":[{"name":"v","secret":{"secretName":"s"}}]}}`},
		{"new values lose nulls and $patch objects",
			`{}`, `{"spec":{"a":null,"b":{"x":null,"y":1},"ports":[{"containerPort":1},{"containerPort":2,"$patch":"delete"}]}}`,
			`{"spec":{"b":{"y":1},"ports":[{"containerPort":1}]}}`},
		{"a $deleteFromPrimitiveList for a missing list does nothing",
			`{"metadata":{}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`, `{"metadata":{}}`},
		{"a type change takes the patch's value",
			`{"a":[1,2]}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
		{"a null patch changes nothing", `{"a":1}`, `null`, `{"a":1}`},
		{"keys keep their order; new keys come last",
			`{"z":1,"a":{"y":1,"b":2}}`, `{"a":{"c":3,"b":4},"n":5}`, `{"z":1,"a":{"y":1,"b":4,"c":3},"n":5}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Apply([]byte(c.original), []byte(c.patch), podLike)
			require.NoError(t, err, "Apply(%s, %s)", c.original, c.patch)
			assert.Equal(t, c.want, string(got), "Apply(%s, %s)", c.original, c.patch)
		})
	}
}

func TestApplyErrors(t *testing.T) {
	cases := []struct {
		name, original, patch string
		code                  int
		msg                   string
	}{
		{"unknown $patch in a list item", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"name":"a","$patch":"bogus"}]}}`,
			500, "unknown patch type: bogus in map: map[$patch:bogus name:a]"},
		{"$patch: merge in a list", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"$patch":"merge"}]}}`,
			500, "merging lists cannot yet be specified in the patch"},
		{"an item without its merge key", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"image":"x"}]}}`,
			500, "map: map[image:x] does not contain declared merge key: name"},
		{"$retainKeys must be a list", `{"spec":{}}`, `{"spec":{"$retainKeys":"a"}}`, 400, "invalid patch format of retainKeys"},
		{"$retainKeys must name every key set", `{"spec":{}}`, `{"spec":{"$retainKeys":["a"],"b":1}}`, 400, "invalid patch format of retainKeys"},
		{"$setElementOrder must be a list", `{"spec":{"containers":[]}}`, `{"spec":{"$setElementOrder/containers":{"name":"a"}}}`,
			500, "expected a []interface {}, but received a map[string]interface {}"},
		{"a $setElementOrder key needs a field", `{}`, `{"$setElementOrder":[]}`, 400, "invalid patch format of setElementOrder list"},
		{"a $deleteFromPrimitiveList key needs a field", `{}`, `{"$deleteFromPrimitiveListx":[]}`, 400, "invalid patch format of primitive list"},
		{"lists of lists", `{"metadata":{"finalizers":[["a"]]}}`, `{"metadata":{"finalizers":[["b"]]}}`, 422, "lists of lists are not supported"},
		{"mixed item types", `{"metadata":{"finalizers":["a"]}}`, `{"metadata":{"finalizers":[1]}}`,
			500, "list element types are not identical: [[a] [1]]"},
		{"a patch that is not an object", `{}`, `[1]`, 400, "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"a patch that is not JSON", `{}`, `{`, 400, ""},
		{"a merged list of objects without a merge key", `{"a":[{"x":1}]}`, `{"a":[{"x":2}]}`, 500, "cannot merge lists without merge key for a"},
	}
	schema := mapSchema{}
	for k, v := range podLike {
		schema[k] = v
	}
	schema["a"] = PatchMeta{Strategy: Merge}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Apply([]byte(c.original), []byte(c.patch), schema)
			var pe *Error
			require.ErrorAs(t, err, &pe, "Apply(%s, %s) = %s, want an error", c.original, c.patch, got)
			assert.Equal(t, c.code, pe.Code)
			if c.msg != "" {
				assert.Equal(t, c.msg, pe.Msg)
			}
		})
	}
	_, err := Apply([]byte(`{`), []byte(`{}`), nil)
	var pe *Error
	assert.Error(t, err)
	assert.False(t, errors.As(err, &pe), "a malformed original is not the patch's fault")
}

// TestBuiltinSchema checks the merge-key table the built-in kinds get from
// the real server's OpenAPI documents.
func TestBuiltinSchema(t *testing.T) {
	cases := []struct {
		kind openapi.GVK
		path string
		want PatchMeta
	}{
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.containers", PatchMeta{Strategy: Merge, MergeKey: "name"}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.containers.env", PatchMeta{Strategy: Merge, MergeKey: "name"}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.containers.ports", PatchMeta{Strategy: Merge, MergeKey: "containerPort"}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.containers.volumeMounts", PatchMeta{Strategy: Merge, MergeKey: "mountPath"}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.volumes", PatchMeta{Strategy: Merge, MergeKey: "name", RetainKeys: true}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.tolerations", PatchMeta{}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "spec.containers.args", PatchMeta{}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "metadata.finalizers", PatchMeta{Strategy: Merge}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "metadata.ownerReferences", PatchMeta{Strategy: Merge, MergeKey: "uid"}},
		{openapi.GVK{Version: "v1", Kind: "Pod"}, "status.conditions", PatchMeta{Strategy: Merge, MergeKey: "type"}},
		{openapi.GVK{Version: "v1", Kind: "Service"}, "spec.ports", PatchMeta{Strategy: Merge, MergeKey: "port"}},
		{openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"}, "spec.template.spec.containers", PatchMeta{Strategy: Merge, MergeKey: "name"}},
		{openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"}, "spec.strategy", PatchMeta{RetainKeys: true}},
		{openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"}, "spec.template.spec.imagePullSecrets", PatchMeta{Strategy: Merge, MergeKey: "name"}},
		{openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"}, "spec.nope", PatchMeta{}},
		{openapi.GVK{Group: "batch", Version: "v1", Kind: "CronJob"}, "spec.jobTemplate.spec.template.spec.initContainers", PatchMeta{Strategy: Merge, MergeKey: "name"}},
	}
	for _, c := range cases {
		s, ok := ForKind(openapi.Builtin(), c.kind)
		require.True(t, ok, "ForKind(%v)", c.kind)
		assert.Equal(t, c.want, s.Lookup(strings.Split(c.path, ".")), "%v %s", c.kind, c.path)
	}
	_, ok := ForKind(openapi.Builtin(), openapi.GVK{Group: "example.com", Version: "v1", Kind: "Widget"})
	assert.False(t, ok, "a custom resource has no strategic merge schema")
}

// TestBuiltinMergeListsHaveKeys walks every list of every built-in kind:
// a merged list of objects must have a merge key, or no patch could merge
// it.
func TestBuiltinMergeListsHaveKeys(t *testing.T) {
	defs := openapi.Builtin()
	lists, merged := 0, 0
	for _, gvk := range defs.Kinds() {
		_, root, _ := defs.ForKind(gvk)
		// onStack holds the definitions being walked, so recursive types
		// (JSONSchemaProps) are entered once per path.
		onStack := map[string]bool{}
		var walk func(s *openapi.Schema, path string)
		walk = func(s *openapi.Schema, path string) {
			if s == nil {
				return
			}
			if s.Ref != "" {
				if onStack[s.Ref] {
					return
				}
				onStack[s.Ref] = true
				defer delete(onStack, s.Ref)
			}
			s = defs.Resolve(s)
			for _, p := range s.Properties {
				fp := path + "." + p.Name
				f := defs.Resolve(p.Schema)
				if f == nil {
					continue
				}
				if f.Type == "array" {
					lists++
					meta := MetaOf(f)
					if meta.Strategy == Merge {
						merged++
						if item := defs.Elem(f); item != nil && item.Type == "object" {
							assert.NotEmpty(t, meta.MergeKey, "%v %s merges objects without a merge key", gvk, fp)
						}
					}
					walk(f.Items, fp)
					continue
				}
				walk(p.Schema, fp)
			}
		}
		walk(root, "")
	}
	t.Logf("%d kinds, %d list fields, %d merged by strategic merge patch", len(defs.Kinds()), lists, merged)
	assert.Greater(t, merged, 100)
}
