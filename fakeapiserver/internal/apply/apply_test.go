package apply

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

var now = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func configMapType(t *testing.T) Type {
	typ, ok := ForKind(openapi.Builtin(), openapi.GVK{Version: "v1", Kind: "ConfigMap"})
	require.True(t, ok)
	return typ
}

func cmRequest(manager string) Request {
	return Request{Manager: manager, APIVersion: "v1", Kind: "ConfigMap", Now: now}
}

// applyCM applies config as manager to live and returns the result.
func applyCM(t *testing.T, live jsonv.Value, manager, config string, force bool) (*Result, error) {
	r := cmRequest(manager)
	r.Force = force
	return Apply(live, []byte(config), configMapType(t), r)
}

func mustApply(t *testing.T, live jsonv.Value, manager, config string) jsonv.Value {
	res, err := applyCM(t, live, manager, config, false)
	require.NoError(t, err, "%s applies %s", manager, config)
	return res.Object
}

func data(t *testing.T, obj jsonv.Value) map[string]string {
	out := map[string]string{}
	if d := obj.Get("data"); d != nil {
		for _, m := range d.Obj {
			out[m.Key] = m.Value.Str
		}
	}
	return out
}

// owners returns manager → owned paths of an object, as "data.a".
func owners(t *testing.T, obj jsonv.Value) map[string][]string {
	entries, err := decodeManaged(managedFieldsOf(obj))
	require.NoError(t, err)
	out := map[string][]string{}
	for _, e := range entries {
		for _, p := range e.Set.sorted() {
			out[e.Manager+"/"+e.Operation] = append(out[e.Manager+"/"+e.Operation], strings.TrimPrefix(pathString(p), "."))
		}
	}
	return out
}

const cmHead = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}`

func TestApplyCreatesAndOwns(t *testing.T) {
	res, err := applyCM(t, jsonv.Value{}, "m1", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {app: web}\ndata:\n  a: \"1\"\n", false)
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, map[string]string{"a": "1"}, data(t, res.Object))
	assert.Equal(t, map[string][]string{"m1/Apply": {"data.a", "metadata.labels.app"}}, owners(t, res.Object))
	assert.JSONEq(t, `[{"manager":"m1","operation":"Apply","apiVersion":"v1","time":"2025-01-02T03:04:05Z","fieldsType":"FieldsV1",
		"fieldsV1":{"f:data":{"f:a":{}},"f:metadata":{"f:labels":{"f:app":{}}}}}]`, string(res.ManagedFields))

	again, err := applyCM(t, res.Object, "m1", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {app: web}\ndata:\n  a: \"1\"\n", false)
	require.NoError(t, err)
	assert.False(t, again.Changed, "the same apply again changes nothing")
}

// TestApplyConflictsForceAndRemoval walks what a real server was seen to
// do with field ownership: a conflict with another manager's field, force,
// shared ownership and the removal of fields a manager stops applying.
func TestApplyConflictsForceAndRemoval(t *testing.T) {
	live := mustApply(t, jsonv.Value{}, "kubectl", cmHead+`,"data":{"a":"1","b":"2"}}`)

	// An ordinary write by another manager takes .data.a.
	patched := withManagedFields(mustSet(t, live, "data", `{"a":"2","b":"2"}`), nil)
	patched = withManagedFields(patched, Update(live, patched, configMapType(t), cmRequest("kubectl-patch")))
	assert.Equal(t, map[string][]string{"kubectl/Apply": {"data.b"}, "kubectl-patch/Update": {"data.a"}}, owners(t, patched))

	// Applying a different value conflicts...
	_, err := applyCM(t, patched, "kubectl", cmHead+`,"data":{"a":"3","b":"2"}}`, false)
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.a`, err.Error())
	st := ce.Status()
	assert.Equal(t, int32(409), st.Code)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, "FieldManagerConflict", string(st.Details.Causes[0].Type))
	assert.Equal(t, ".data.a", st.Details.Causes[0].Field)

	// ...the same value does not: ownership is shared.
	shared, err := applyCM(t, patched, "kubectl", cmHead+`,"data":{"a":"2","b":"2"}}`, false)
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"kubectl/Apply": {"data.a", "data.b"}, "kubectl-patch/Update": {"data.a"}}, owners(t, shared.Object))

	// Force takes the field.
	forced, err := applyCM(t, patched, "kubectl", cmHead+`,"data":{"a":"3","b":"2"}}`, true)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "3", "b": "2"}, data(t, forced.Object))
	assert.Equal(t, map[string][]string{"kubectl/Apply": {"data.a", "data.b"}}, owners(t, forced.Object))

	// Leaving b out removes it: nobody else owns it.
	dropped := mustApply(t, forced.Object, "kubectl", cmHead+`,"data":{"a":"3"}}`)
	assert.Equal(t, map[string]string{"a": "3"}, data(t, dropped))

	// A field another manager shares stays when one of them lets go.
	two := mustApply(t, dropped, "other", cmHead+`,"data":{"a":"3"}}`)
	kept := mustApply(t, two, "kubectl", cmHead+`}`)
	assert.Equal(t, map[string]string{"a": "3"}, data(t, kept))
	assert.Equal(t, map[string][]string{"other/Apply": {"data.a"}}, owners(t, kept))
}

func mustSet(t *testing.T, obj jsonv.Value, key, value string) jsonv.Value {
	v, err := jsonv.Parse([]byte(value))
	require.NoError(t, err)
	out := obj.Clone()
	out.Set(key, v.Value)
	return out
}

func TestApplyRefusals(t *testing.T) {
	cases := []struct {
		name, manager, config string
		code                  int
		msg                   string
	}{
		{"no field manager", "", cmHead + `}`, 422, `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"a manager name too long", strings.Repeat("m", 129), cmHead + `}`, 422, ""},
		{"another kind", "m", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"c"}}`, 400, "invalid object type: /v1, Kind=Secret"},
		{"no apiVersion", "m", `{"kind":"ConfigMap","metadata":{"name":"c"}}`, 400, "invalid object type: /, Kind=ConfigMap"},
		{"managedFields set", "m", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[]}}`, 400, "metadata.managedFields must be nil"},
		{"not an object", "m", `"text"`, 400, "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}"},
		{"not YAML", "m", "{a: [", 400, ""},
		{"an unknown field", "m", cmHead + `,"bogus":1}`, 500, "failed to create typed patch object (/c; /v1, Kind=ConfigMap): .bogus: field not declared in schema"},
		{"a wrong type", "m", cmHead + `,"data":{"a":1}}`, 500, "failed to create typed patch object (/c; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:1}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := applyCM(t, jsonv.Value{}, c.manager, c.config, false)
			var ae *Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, c.code, ae.Code)
			if c.msg != "" {
				assert.Equal(t, c.msg, ae.Msg)
			}
		})
	}
}

func TestUpdateOnCreateAndAfter(t *testing.T) {
	typ := configMapType(t)
	obj := parse(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},"data":{"a":"1","b":"2"}}`)
	mf := Update(jsonv.Value{}, obj, typ, cmRequest("kubectl-create"))
	assert.JSONEq(t, `[{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2025-01-02T03:04:05Z","fieldsType":"FieldsV1",
		"fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}}}]`, string(mf))
	live := withManagedFields(obj, mf)

	next := parse(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},"data":{"a":"1","b":"3","c":"4"}}`)
	r := cmRequest("editor")
	r.Now = now.Add(time.Minute)
	mf = Update(live, next, typ, r)
	live = withManagedFields(next, mf)
	assert.Equal(t, map[string][]string{
		"kubectl-create/Update": {"data", "data.a", "metadata.labels", "metadata.labels.a"},
		"editor/Update":         {"data.b", "data.c"},
	}, owners(t, live))

	// A write that changes nothing records nothing.
	assert.JSONEq(t, string(mf), string(Update(live, withManagedFields(next, nil), typ, cmRequest("noop"))))

	// Removing fields takes them from every entry; an entry left empty goes.
	last := parse(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`)
	live = withManagedFields(last, Update(live, last, typ, cmRequest("remover")))
	assert.Equal(t, map[string][]string{"kubectl-create/Update": {"data", "data.a"}}, owners(t, live))
}

func TestUpdateUsesManagedFieldsTheClientSends(t *testing.T) {
	typ := configMapType(t)
	live := withManagedFields(parse(t, cmHead+`,"data":{"a":"1"}}`),
		json.RawMessage(`[{"manager":"x","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]`))
	sent := withManagedFields(parse(t, cmHead+`,"data":{"a":"1"}}`),
		json.RawMessage(`[{"manager":"y","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]`))
	got := withManagedFields(sent, Update(live, sent, typ, cmRequest("w")))
	assert.Equal(t, map[string][]string{"y/Update": {"data.a"}}, owners(t, got))
	r := cmRequest("w")
	r.Subresource = "status"
	got = withManagedFields(sent, Update(live, sent, typ, r))
	assert.Equal(t, map[string][]string{"x/Update": {"data.a"}}, owners(t, got), "not through a subresource")
}

func TestApplyBeforeFirstApply(t *testing.T) {
	live := parse(t, cmHead+`,"data":{"a":"1"}}`)
	_, err := applyCM(t, live, "m", cmHead+`,"data":{"a":"2"}}`, false)
	assert.EqualError(t, err, `Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a`)
}

func TestUpdateCapsEntries(t *testing.T) {
	typ := configMapType(t)
	live := parse(t, cmHead+`}`)
	for i := 0; i < 12; i++ {
		next := live.Clone()
		next.Set("data", parse(t, `{"k`+string(rune('a'+i))+`":"v"}`))
		r := cmRequest("m" + string(rune('a'+i)))
		r.Now = now.Add(time.Duration(i) * time.Second)
		live = withManagedFields(next, Update(live, withManagedFields(next, nil), typ, r))
	}
	entries, err := decodeManaged(managedFieldsOf(live))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(entries), maxUpdateManagers)
}

func parse(t *testing.T, s string) jsonv.Value {
	res, err := jsonv.Parse([]byte(s))
	require.NoError(t, err)
	return res.Value
}

func TestDeploymentLists(t *testing.T) {
	typ, ok := ForKind(openapi.Builtin(), openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	require.True(t, ok)
	r := Request{Manager: "m1", APIVersion: "apps/v1", Kind: "Deployment", StatusSubresource: true, Now: now}
	head := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","finalizers":["a"]},"spec":{"template":{"spec":{`
	res, err := Apply(jsonv.Value{}, []byte(head+`"containers":[{"name":"app","image":"x:1","ports":[{"containerPort":80}]}],"tolerations":[{"key":"k"}]}}},"status":{"replicas":3}}`), typ, r)
	require.NoError(t, err)
	assert.Nil(t, res.Object.Get("status"), "the main resource does not write status")
	assert.JSONEq(t, `{"f:metadata":{"f:finalizers":{"v:\"a\"":{}}},"f:spec":{"f:template":{"f:spec":{
		"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}},
		"f:tolerations":{}}}}}`, fieldsOf(t, res.ManagedFields, 0))

	r2 := r
	r2.Manager = "m2"
	res2, err := Apply(res.Object, []byte(head+`"containers":[{"name":"side","image":"y:1"},{"name":"app","image":"x:1"}]}}}}`), typ, r2)
	require.NoError(t, err)
	names := []string{}
	for _, c := range res2.Object.Get("spec").Get("template").Get("spec").Get("containers").Arr {
		names = append(names, c.Get("name").Str)
	}
	assert.Equal(t, []string{"side", "app"}, names, "the configuration's order, the live object's other items in place")

	_, err = Apply(res2.Object, []byte(head+`"tolerations":[{"key":"other"}]}}}}`), typ, r2)
	assert.EqualError(t, err, `Apply failed with 1 conflict: conflict with "m1": .spec.template.spec.tolerations`, "an atomic list is owned whole")
}

func fieldsOf(t *testing.T, mf json.RawMessage, i int) string {
	var entries []struct{ FieldsV1 json.RawMessage }
	require.NoError(t, json.Unmarshal(mf, &entries))
	require.Greater(t, len(entries), i)
	return string(entries[i].FieldsV1)
}

func TestFieldsV1RoundTrip(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"f:data":{".":{},"f:a":{}}}`,
		`{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:image":{}}},"f:x":{"v:\"b\"":{},"v:1":{}}}}`,
		`{"f:list":{"i:0":{},"i:10":{},"i:2":{}}}`,
	} {
		s, err := decodeFieldsV1(json.RawMessage(in))
		require.NoError(t, err, in)
		want := parse(t, in)
		got := parse(t, string(encodeFieldsV1(s)))
		assert.True(t, jsonv.Equal(want, got), "round trip of %s gave %s", in, encodeFieldsV1(s))
	}
	for _, bad := range []string{`[]`, `{"x":{}}`, `{"f:a":1}`, `{"k:{bad":{}}`, `{"i:x":{}}`, `{`} {
		_, err := decodeFieldsV1(json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

func TestPathString(t *testing.T) {
	for p, want := range map[string]string{
		"f:data" + pathSep + "f:a":                                              ".data.a",
		"f:spec" + pathSep + `k:{"name":"a"}` + pathSep + "f:args":              `.spec[name="a"].args`,
		"f:ports" + pathSep + `k:{"containerPort":80,"protocol":"TCP"}`:         `.ports[containerPort=80,protocol="TCP"]`,
		"f:metadata" + pathSep + "f:finalizers" + pathSep + `v:"example.com/a"`: `.metadata.finalizers[="example.com/a"]`,
	} {
		assert.Equal(t, want, pathString(p))
	}
}

func TestCustomResourceSchema(t *testing.T) {
	root, err := openapi.FromJSONSchema([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"],"items":{"type":"object","properties":{"port":{"type":"integer"},"name":{"type":"string"}}}},
		"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}}`))
	require.NoError(t, err)
	typ := ForSchema(openapi.Builtin(), root)
	r := Request{Manager: "a", APIVersion: "example.com/v1", Kind: "Widget", Now: now}
	head := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":`
	first, err := Apply(jsonv.Value{}, []byte(head+`{"ports":[{"port":1,"name":"one"}],"tags":["x"],"extra":true}}`), typ, r)
	require.NoError(t, err, "undeclared fields are accepted")
	r.Manager = "b"
	second, err := Apply(first.Object, []byte(head+`{"ports":[{"port":2}],"tags":["y"]}}`), typ, r)
	require.NoError(t, err, "items of a map list and values of a set are owned apart: no conflict")
	assert.Equal(t, `{"extra":true,"ports":[{"name":"one","port":1},{"port":2}],"tags":["x","y"]}`, string(jsonv.Marshal(*second.Object.Get("spec"))))
	assert.Equal(t, map[string][]string{
		"a/Apply": {"spec.extra", "spec.ports[port=1]", "spec.ports[port=1].name", "spec.ports[port=1].port", "spec.tags[=\"x\"]"},
		"b/Apply": {"spec.ports[port=2]", "spec.ports[port=2].port", "spec.tags[=\"y\"]"},
	}, owners(t, second.Object))
}
