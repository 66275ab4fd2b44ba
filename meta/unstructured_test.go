package meta_test

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// podJSON is a realistic 5 KB pod as a real server sends it (compact).
func podJSON(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/pod.json")
	require.NoError(t, err)
	return bytes.TrimSpace(data)
}

func decodeU(t *testing.T, data string) *meta.Unstructured {
	t.Helper()
	u, err := meta.Decode[*meta.Unstructured]([]byte(data))
	require.NoError(t, err, "Decode(%s)", data)
	return u
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

func TestUnstructuredRoundTripIsExact(t *testing.T) {
	data := podJSON(t)
	u, err := meta.Decode[*meta.Unstructured](data)
	require.NoError(t, err)
	assert.Equal(t, "production/web-7d9f8c6b5-x2k4q", meta.Key(u))
	assert.Equal(t, "4827163", u.ResourceVersion)
	assert.Equal(t, "ReplicaSet", u.OwnerReferences[0].Kind)
	assert.True(t, *u.OwnerReferences[0].Controller)
	assert.Equal(t, 5, len(u.Labels))
	assert.Equal(t, "kubelet", u.ManagedFields[1].Manager)

	// A real server's compact output comes back byte for byte.
	assert.Equal(t, string(data), marshal(t, u))
	// Value and pointer encode the same.
	assert.Equal(t, string(data), marshal(t, *u))

	// Indented input comes back compact.
	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, data, "", "  "))
	u2, err := meta.Decode[*meta.Unstructured](pretty.Bytes())
	require.NoError(t, err)
	assert.Equal(t, string(data), marshal(t, u2))
}

func TestUnstructuredKeepsUnknownFieldsAndLargeIntegers(t *testing.T) {
	in := `{"kind":"Widget","apiVersion":"ex.com/v1","metadata":{"name":"w","generation":9223372036854775807,"selfLink":"/x","future":{"a":[1,2.50,{"b":null}]}},` +
		`"spec":{"max":9223372036854775807,"min":-9223372036854775808,"huge":123456789012345678901234567890,"f":1.0e-7,"s":"\u00e9\u0000<&>","deep":{"x":[[],{},true,false,null]}},"status":{}}`
	u := decodeU(t, in)
	assert.EqualValues(t, 9223372036854775807, u.Generation)
	out := marshal(t, u)
	assert.JSONEq(t, in, out)
	assert.Contains(t, out, `"max":9223372036854775807`)
	assert.Contains(t, out, `"huge":123456789012345678901234567890`)
	assert.Contains(t, out, `"f":1.0e-7`, "numbers are kept as written")
	direct, err := u.MarshalJSON() // json.Marshal would escape <&> on its own
	require.NoError(t, err)
	assert.Contains(t, string(direct), `"s":"\u00e9\u0000<&>"`, "strings outside metadata are kept as written")

	v, ok := u.Field("spec", "max")
	require.True(t, ok)
	assert.Equal(t, json.Number("9223372036854775807"), v)

	// Unknown metadata fields survive a change to metadata.
	u.SetLabels(map[string]string{"a": "b"})
	out = marshal(t, u)
	assert.Contains(t, out, `"selfLink":"/x","future":{"a":[1,2.50,{"b":null}]}`)
	assert.Contains(t, out, `"labels":{"a":"b"}`)
	sl, ok := u.FieldString("metadata", "selfLink")
	assert.True(t, ok)
	assert.Equal(t, "/x", sl)
}

func TestUnstructuredMetadataChangesAreEncoded(t *testing.T) {
	u := decodeU(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"1"},"data":{"k":"v"}}`)

	u.SetName("b")
	u.SetNamespace("other")
	u.SetResourceVersion("2")
	u.SetUID("uid-1")
	u.SetAnnotations(map[string]string{"note": "x"})
	u.SetKind("Secret")
	u.SetAPIVersion("v2")
	// Through the Object interface, as the cache and the fake server do.
	var obj meta.Object = u
	obj.GetObjectMeta().Finalizers = []string{"example.com/f"}
	obj.GetObjectMeta().Labels = map[string]string{"app": "web"}
	u.Generation = 3

	assert.Equal(t, `{"kind":"Secret","apiVersion":"v2","metadata":{"name":"b","namespace":"other","uid":"uid-1","resourceVersion":"2","generation":3,`+
		`"labels":{"app":"web"},"annotations":{"note":"x"},"finalizers":["example.com/f"]},"data":{"k":"v"}}`, marshal(t, u))

	name, _ := u.FieldString("metadata", "name")
	assert.Equal(t, "b", name)
	kind, _ := u.FieldString("kind")
	assert.Equal(t, "Secret", kind)
}

func TestUnstructuredZeroAndEmpty(t *testing.T) {
	var u meta.Unstructured
	assert.Equal(t, `{"metadata":{}}`, marshal(t, &u))
	_, ok := u.Field("spec")
	assert.False(t, ok)

	e := decodeU(t, `{}`)
	assert.Equal(t, `{"metadata":{}}`, marshal(t, e))

	// null leaves the value as it was, like encoding/json does.
	keep := decodeU(t, `{"metadata":{"name":"keep"}}`)
	require.NoError(t, json.Unmarshal([]byte(` null `), keep))
	assert.Equal(t, "keep", keep.Name)

	// metadata: null is an object without metadata.
	n := decodeU(t, `{"kind":"X","metadata":null,"spec":1}`)
	assert.Equal(t, `{"kind":"X","metadata":{},"spec":1}`, marshal(t, n))
}

func TestUnstructuredDecodeReplacesEverything(t *testing.T) {
	u := decodeU(t, `{"kind":"A","metadata":{"name":"a","labels":{"x":"y"},"extra":1},"spec":{"a":1}}`)
	require.NoError(t, json.Unmarshal([]byte(`{"metadata":{"name":"b"},"status":2}`), u))
	assert.Equal(t, `{"metadata":{"name":"b"},"status":2}`, marshal(t, u))
}

func TestUnstructuredRepeatedKeysLastWins(t *testing.T) {
	u := decodeU(t, `{"kind":"A","kind":"B","metadata":{"name":"a","namespace":"x"},"metadata":{"name":"b"},"spec":1,"spec":2}`)
	assert.Equal(t, "B", u.Kind)
	assert.Equal(t, "b", meta.Key(u), "a repeated metadata replaces the first one")
	v, _ := u.Field("spec")
	assert.Equal(t, json.Number("2"), v)
}

func TestUnstructuredEscapedKeys(t *testing.T) {
	u := decodeU(t, `{"\u006bind":"Pod","metadata":{"n\u0061me":"a\"b","labels":{"\u0061":"\u00e9"}}}`)
	assert.Equal(t, "Pod", u.Kind)
	assert.Equal(t, `a"b`, u.Name)
	assert.Equal(t, "é", u.Labels["a"])
}

func TestUnstructuredDecodeErrors(t *testing.T) {
	tests := []struct {
		in      string
		syntax  bool   // a *SyntaxError
		field   string // else a *TypeError on this field
		message string
	}{
		{``, true, "", "where a value was expected"},
		{`{`, true, "", "end of input"},
		{`{"a":1,}`, true, "", `character '}', expected a string`},
		{`{"a":01}`, true, "", `after an object member`},
		{`{"a":"\x"}`, true, "", `invalid escape`},
		{`{"a":[1 2]}`, true, "", `after an array element`},
		{`{"a":tru}`, true, "", `where a value was expected`},
		{`{"a":1} x`, true, "", `after the top-level value`},
		{"{\"a\":\"\x01\"}", true, "", `control byte 0x01 inside a string`},
		{`{"a":-}`, true, "", `in a number`},
		{`{"a":1.}`, true, "", `after a decimal point`},
		{`{"a":1e}`, true, "", `in an exponent`},
		{`[]`, false, "object", "expected a JSON object, found array"},
		{`"pod"`, false, "object", "found string"},
		{`{"kind":1}`, false, "kind", "expected a string, found number"},
		{`{"apiVersion":{}}`, false, "apiVersion", "found object"},
		{`{"metadata":[]}`, false, "metadata", "expected an object, found array"},
		{`{"metadata":{"name":true}}`, false, "metadata.name", "found boolean"},
		{`{"metadata":{"namespace":1}}`, false, "metadata.namespace", ""},
		{`{"metadata":{"resourceVersion":12}}`, false, "metadata.resourceVersion", ""},
		{`{"metadata":{"generation":"1"}}`, false, "metadata.generation", "expected an integer, found string"},
		{`{"metadata":{"generation":1.5}}`, false, "metadata.generation", "expected a 64-bit integer, found 1.5"},
		{`{"metadata":{"generation":9223372036854775808}}`, false, "metadata.generation", "64-bit"},
		{`{"metadata":{"creationTimestamp":"yesterday"}}`, false, "metadata.creationTimestamp", "RFC 3339"},
		{`{"metadata":{"deletionTimestamp":5}}`, false, "metadata.deletionTimestamp", ""},
		{`{"metadata":{"deletionGracePeriodSeconds":"x"}}`, false, "metadata.deletionGracePeriodSeconds", ""},
		{`{"metadata":{"labels":[]}}`, false, "metadata.labels", "an object of strings"},
		{`{"metadata":{"labels":{"a":1}}}`, false, "metadata.labels", "expected a string, found number"},
		{`{"metadata":{"annotations":{"a":{}}}}`, false, "metadata.annotations", ""},
		{`{"metadata":{"finalizers":"f"}}`, false, "metadata.finalizers", "an array of strings"},
		{`{"metadata":{"finalizers":[1]}}`, false, "metadata.finalizers", ""},
		{`{"metadata":{"ownerReferences":{}}}`, false, "metadata.ownerReferences", ""},
		{`{"metadata":{"ownerReferences":[1]}}`, false, "metadata.ownerReferences[0]", "expected an object"},
		{`{"metadata":{"ownerReferences":[{"controller":"yes"}]}}`, false, "metadata.ownerReferences[0].controller", "a boolean"},
		{`{"metadata":{"ownerReferences":[{"kind":[]}]}}`, false, "metadata.ownerReferences[0].kind", ""},
		// A syntax error wins over a type error in the same value.
		{`{"metadata":{"name":[1,}}`, true, "", ""},
	}
	for _, tt := range tests {
		u := &meta.Unstructured{}
		u.SetName("untouched")
		// Straight through UnmarshalJSON: encoding/json would catch the
		// syntax errors itself before calling it.
		err := u.UnmarshalJSON([]byte(tt.in))
		require.Error(t, err, "Unmarshal(%s)", tt.in)
		assert.Equal(t, "untouched", u.Name, "a failed decode changed the object")
		if tt.syntax {
			var se *meta.SyntaxError
			require.ErrorAs(t, err, &se, "Unmarshal(%s)", tt.in)
			assert.False(t, json.Valid([]byte(tt.in)))
		} else {
			var te *meta.TypeError
			require.ErrorAs(t, err, &te, "Unmarshal(%s): %v", tt.in, err)
			assert.Equal(t, tt.field, te.Field, "Unmarshal(%s): %v", tt.in, err)
		}
		assert.ErrorContains(t, err, tt.message, "Unmarshal(%s)", tt.in)
	}
}

// Each syntax case straight through UnmarshalJSON, which cannot rely on
// encoding/json having checked the input first.
func TestUnstructuredUnmarshalJSONChecksSyntax(t *testing.T) {
	for _, in := range []string{`{"a":1,}`, `{"a":01}`, `{"a":"\x"}`, `{"a":[1 2]}`, `{"a":tru}`, `{"a":1} x`, "{\"a\":\"\x01\"}", `{"a":1.}`, `{"a":-}`, `{"a":{"b":1]}`, `{"a"}`, `{1:2}`} {
		var u meta.Unstructured
		err := u.UnmarshalJSON([]byte(in))
		var se *meta.SyntaxError
		assert.ErrorAs(t, err, &se, "UnmarshalJSON(%s)", in)
		assert.False(t, json.Valid([]byte(in)), "%s is valid JSON", in)
	}
	deep := bytes.Repeat([]byte(`{"a":`), 10001)
	var u meta.Unstructured
	assert.ErrorContains(t, u.UnmarshalJSON(deep), "nesting deeper than 10000")
}

func TestUnstructuredField(t *testing.T) {
	u := decodeU(t, string(podJSON(t)))
	tests := []struct {
		path []string
		want any
		ok   bool
	}{
		{[]string{"kind"}, "Pod", true},
		{[]string{"apiVersion"}, "v1", true},
		{[]string{"kind", "x"}, nil, false},
		{[]string{"metadata", "name"}, "web-7d9f8c6b5-x2k4q", true},
		{[]string{"metadata", "labels", "tier"}, "frontend", true},
		{[]string{"metadata", "generation"}, json.Number("1"), true},
		{[]string{"metadata", "ownerReferences", "0", "controller"}, true, true},
		{[]string{"metadata", "nope"}, nil, false},
		{[]string{"spec", "nodeName"}, "worker-3", true},
		{[]string{"spec", "containers", "0", "ports", "0", "containerPort"}, json.Number("8080"), true},
		{[]string{"spec", "containers", "1"}, nil, false},
		{[]string{"spec", "containers", "-1"}, nil, false},
		{[]string{"spec", "containers", "x"}, nil, false},
		{[]string{"spec", "nodeName", "x"}, nil, false},
		{[]string{"status", "conditions", "0", "lastProbeTime"}, nil, true},
		{[]string{"status", "containerStatuses", "0", "lastState"}, map[string]any{}, true},
		{[]string{"status", "hostIPs"}, []any{map[string]any{"ip": "172.18.0.4"}}, true},
		{[]string{"nothing"}, nil, false},
	}
	for _, tt := range tests {
		got, ok := u.Field(tt.path...)
		assert.Equal(t, tt.ok, ok, "Field(%q)", tt.path)
		assert.Equal(t, tt.want, got, "Field(%q)", tt.path)
	}
	whole, ok := u.Field()
	require.True(t, ok)
	assert.Equal(t, "Running", whole.(map[string]any)["status"].(map[string]any)["phase"])

	s, ok := u.FieldString("status", "phase")
	assert.True(t, ok)
	assert.Equal(t, "Running", s)
	_, ok = u.FieldString("spec", "priority")
	assert.False(t, ok, "a number is not a string")
	_, ok = u.FieldString("spec", "missing")
	assert.False(t, ok)
}

func TestUnstructuredSetAndRemoveField(t *testing.T) {
	u := decodeU(t, `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"},"spec":{"replicas":1,"paused":false},"status":{"x":1}}`)

	require.NoError(t, u.SetField(3, "spec", "replicas"))
	require.NoError(t, u.SetField(map[string]any{"app": "web"}, "spec", "selector", "matchLabels"))
	require.NoError(t, u.SetField(json.Number("9223372036854775807"), "spec", "big"))
	require.NoError(t, u.SetField("new", "data"))
	assert.Equal(t, `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"},"spec":{"replicas":3,"paused":false,"selector":{"matchLabels":{"app":"web"}},"big":9223372036854775807},"status":{"x":1},"data":"new"}`, marshal(t, u))

	removed, err := u.RemoveField("spec", "paused")
	require.NoError(t, err)
	assert.True(t, removed)
	removed, err = u.RemoveField("spec", "paused")
	require.NoError(t, err)
	assert.False(t, removed)
	removed, err = u.RemoveField("nothing", "here")
	require.NoError(t, err)
	assert.False(t, removed)
	removed, err = u.RemoveField("status")
	require.NoError(t, err)
	assert.True(t, removed)
	assert.Equal(t, `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"big":9223372036854775807},"data":"new"}`, marshal(t, u))

	// Through a non-object: an error, and nothing changes.
	before := marshal(t, u)
	err = u.SetField(1, "spec", "replicas", "x")
	assert.ErrorIs(t, err, meta.ErrNotObject)
	assert.ErrorContains(t, err, "set field spec.replicas.x")
	assert.Equal(t, before, marshal(t, u))
	assert.Error(t, u.SetField(1))
	assert.Error(t, u.SetField(make(chan int), "spec"))
	_, err = u.RemoveField()
	assert.Error(t, err)

	// kind, apiVersion and metadata go through the decoded fields.
	require.NoError(t, u.SetField("StatefulSet", "kind"))
	assert.Equal(t, "StatefulSet", u.Kind)
	require.NoError(t, u.SetField(map[string]string{"a": "b"}, "metadata", "labels"))
	assert.Equal(t, "b", u.Labels["a"])
	require.NoError(t, u.SetField("ns", "metadata", "namespace"))
	assert.Equal(t, "ns/d", meta.Key(u))
	require.NoError(t, u.SetField("v", "metadata", "custom", "deep"))
	v, ok := u.FieldString("metadata", "custom", "deep")
	assert.True(t, ok)
	assert.Equal(t, "v", v)

	err = u.SetField(5, "metadata", "name")
	var te *meta.TypeError
	assert.ErrorAs(t, err, &te)
	assert.Equal(t, "d", u.Name, "a failed metadata change left a trace")
	assert.Error(t, u.SetField(5, "kind"))
	assert.ErrorIs(t, u.SetField("x", "kind", "sub"), meta.ErrNotObject)

	removed, err = u.RemoveField("metadata", "labels")
	require.NoError(t, err)
	assert.True(t, removed)
	assert.Nil(t, u.Labels)
	removed, err = u.RemoveField("kind")
	require.NoError(t, err)
	assert.True(t, removed)
	assert.Empty(t, u.Kind)
	removed, err = u.RemoveField("metadata")
	require.NoError(t, err)
	assert.True(t, removed)
	assert.Equal(t, `{"apiVersion":"apps/v1","metadata":{},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"big":9223372036854775807},"data":"new"}`, marshal(t, u))

	// Removing every other member leaves an empty object.
	for _, k := range []string{"spec", "data"} {
		_, err := u.RemoveField(k)
		require.NoError(t, err)
	}
	assert.Equal(t, `{"apiVersion":"apps/v1","metadata":{}}`, marshal(t, u))
}

func TestUnstructuredSetFieldDoesNotDisturbCopies(t *testing.T) {
	u := decodeU(t, `{"metadata":{"name":"a"},"spec":{"n":1},"status":{"s":"x"}}`)
	c := u.DeepCopy()
	require.NoError(t, u.SetField(2, "spec", "n"))
	assert.Equal(t, `{"metadata":{"name":"a"},"spec":{"n":1},"status":{"s":"x"}}`, marshal(t, c))
	assert.Equal(t, `{"metadata":{"name":"a"},"spec":{"n":2},"status":{"s":"x"}}`, marshal(t, u))
}

func TestUnstructuredObjectAndUnmarshalContent(t *testing.T) {
	u := decodeU(t, string(podJSON(t)))
	m, err := u.Object()
	require.NoError(t, err)
	assert.Equal(t, "Pod", m["kind"])
	assert.Equal(t, json.Number("30"), m["spec"].(map[string]any)["terminationGracePeriodSeconds"])
	// The map is fresh: changing it does not change u.
	m["kind"] = "Changed"
	m["spec"].(map[string]any)["nodeName"] = "elsewhere"
	node, _ := u.FieldString("spec", "nodeName")
	assert.Equal(t, "worker-3", node)
	assert.Equal(t, "Pod", u.Kind)

	var p Pod
	require.NoError(t, u.UnmarshalContent(&p))
	assert.Equal(t, "web-7d9f8c6b5-x2k4q", p.Name)
	assert.Equal(t, "registry.example.com/shop/web:1.24.3", p.Spec.Containers[0].Image)
	assert.ErrorContains(t, u.UnmarshalContent(&struct{ Spec int }{}), "unmarshal Pod production/web-7d9f8c6b5-x2k4q")

}

func TestUnstructuredDeepCopy(t *testing.T) {
	u := decodeU(t, string(podJSON(t)))
	before := marshal(t, u)
	c := u.DeepCopy()
	assert.Equal(t, before, marshal(t, c))

	c.Labels["app"] = "changed"
	c.Annotations["x"] = "y"
	*c.OwnerReferences[0].Controller = false
	c.OwnerReferences[0].Name = "other"
	c.ManagedFields[1].Manager = "changed"
	c.Name = "copy"
	require.NoError(t, c.SetField("elsewhere", "spec", "nodeName"))
	assert.Equal(t, before, marshal(t, u), "changing the copy changed the original")

	var nilU *meta.Unstructured
	assert.Nil(t, nilU.DeepCopy())
}

func TestToUnstructured(t *testing.T) {
	p := &Pod{TypeMeta: meta.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "b"}}
	p.Spec.NodeName = "n"
	u, err := meta.ToUnstructured(p)
	require.NoError(t, err)
	assert.Equal(t, "b/a", meta.Key(u))
	n, _ := u.FieldString("spec", "nodeName")
	assert.Equal(t, "n", n)

	_, err = meta.ToUnstructured([]int{1})
	assert.ErrorContains(t, err, "to unstructured")
	_, err = meta.ToUnstructured(func() {})
	assert.ErrorContains(t, err, "to unstructured")
}

// Reading a shared object from many goroutines is safe: no reader writes.
func TestUnstructuredConcurrentReads(t *testing.T) {
	u := decodeU(t, string(podJSON(t)))
	want := marshal(t, u)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				out, err := json.Marshal(u)
				if !assert.NoError(t, err) || !assert.Equal(t, want, string(out)) {
					return
				}
				_, _ = u.Field("spec", "containers", "0", "image")
				_, _ = u.FieldString("metadata", "labels", "app")
				_, _ = u.Object()
				_ = u.DeepCopy()
			}
		})
	}
	wg.Wait()
}
