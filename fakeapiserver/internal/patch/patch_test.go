package patch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The examples of RFC 7386 appendix A.
func TestMergeRFC7386Examples(t *testing.T) {
	cases := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
		{`{"z":1,"a":{"y":1,"b":2}}`, `{"a":{"b":3,"c":4}}`, `{"z":1,"a":{"y":1,"b":3,"c":4}}`},
	}
	for _, c := range cases {
		got, err := Merge([]byte(c.target), []byte(c.patch))
		require.NoError(t, err, "Merge(%s, %s)", c.target, c.patch)
		assert.Equal(t, c.want, string(jsonv.Marshal(got)), "Merge(%s, %s)", c.target, c.patch)
	}
}

func TestMergeRejectsNonObjectPatch(t *testing.T) {
	for _, p := range []string{`[1]`, `"x"`, `{`, `null`} {
		_, err := Merge([]byte(`{}`), []byte(p))
		var de *DecodeError
		assert.ErrorAs(t, err, &de, "Merge patch %s", p)
	}
}

// The examples of RFC 6902 appendix A (those that apply to a document).
func TestJSONRFC6902Examples(t *testing.T) {
	cases := []struct{ doc, patch, want string }{
		{`{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux"}]`, `{"foo":"bar","baz":"qux"}`},
		{`{"foo":["bar","baz"]}`, `[{"op":"add","path":"/foo/1","value":"qux"}]`, `{"foo":["bar","qux","baz"]}`},
		{`{"baz":"qux","foo":"bar"}`, `[{"op":"remove","path":"/baz"}]`, `{"foo":"bar"}`},
		{`{"foo":["bar","qux","baz"]}`, `[{"op":"remove","path":"/foo/1"}]`, `{"foo":["bar","baz"]}`},
		{`{"baz":"qux","foo":"bar"}`, `[{"op":"replace","path":"/baz","value":"boo"}]`, `{"baz":"boo","foo":"bar"}`},
		{`{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}`, `[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]`, `{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}`},
		{`{"foo":["all","grass","cows","eat"]}`, `[{"op":"move","from":"/foo/1","path":"/foo/3"}]`, `{"foo":["all","cows","eat","grass"]}`},
		{`{"baz":"qux","foo":["a",2,"c"]}`, `[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]`, `{"baz":"qux","foo":["a",2,"c"]}`},
		{`{"foo":"bar"}`, `[{"op":"add","path":"/child","value":{"grandchild":{}}}]`, `{"foo":"bar","child":{"grandchild":{}}}`},
		{`{"foo":"bar"}`, `[{"op":"add","path":"/baz","value":"qux","xyz":123}]`, `{"foo":"bar","baz":"qux"}`},
		{`{"foo":["bar"]}`, `[{"op":"add","path":"/foo/-","value":["abc","def"]}]`, `{"foo":["bar",["abc","def"]]}`},
		{`{"/":9,"~1":10}`, `[{"op":"test","path":"/~01","value":10}]`, `{"/":9,"~1":10}`},
		{`{"a":{"b":1}}`, `[{"op":"copy","from":"/a","path":"/c"},{"op":"replace","path":"/c/b","value":2}]`, `{"a":{"b":1},"c":{"b":2}}`},
		{`{"a":1}`, `[{"op":"replace","path":"","value":[1]}]`, `[1]`},
	}
	for _, c := range cases {
		got, err := JSON([]byte(c.doc), []byte(c.patch))
		require.NoError(t, err, "JSON(%s, %s)", c.doc, c.patch)
		assert.Equal(t, c.want, string(jsonv.Marshal(got)), "JSON(%s, %s)", c.doc, c.patch)
	}
}

func TestJSONFailures(t *testing.T) {
	apply := []struct{ doc, patch string }{
		{`{"foo":"bar"}`, `[{"op":"add","path":"/baz/bat","value":"qux"}]`},
		{`{"baz":"qux"}`, `[{"op":"test","path":"/baz","value":"bar"}]`},
		{`{"foo":["bar"]}`, `[{"op":"add","path":"/foo/5","value":1}]`},
		{`{"foo":["bar"]}`, `[{"op":"remove","path":"/foo/01"}]`},
		{`{"a":1}`, `[{"op":"remove","path":"/b"}]`},
		{`{"a":1}`, `[{"op":"replace","path":"/b","value":1}]`},
		{`{"a":1}`, `[{"op":"bogus","path":"/a"}]`},
		{`{"a":1}`, `[{"path":"/a"}]`},
		{`{"a":1}`, `[{"op":"add","path":"a","value":1}]`},
		{`{"a":1}`, `[{"op":"add","path":"/a"}]`},
		{`{"a":{"b":1}}`, `[{"op":"move","from":"/a","path":"/a/b/c"}]`},
		{`{"a":1}`, `[{"op":"test","path":"/a~2","value":1}]`},
		{`{"a":1}`, `[{"op":"remove","path":""}]`},
		{`{"a":"s"}`, `[{"op":"add","path":"/a/x","value":1}]`},
	}
	for _, c := range apply {
		_, err := JSON([]byte(c.doc), []byte(c.patch))
		var ae *ApplyError
		assert.ErrorAs(t, err, &ae, "JSON(%s, %s)", c.doc, c.patch)
	}
	for _, p := range []string{`{}`, `[1]`, `[{"op":1}]`, `[`} {
		_, err := JSON([]byte(`{}`), []byte(p))
		var de *DecodeError
		assert.ErrorAs(t, err, &de, "JSON patch %s", p)
	}
	many := "[" + strings.Repeat(`{"op":"test","path":"","value":{}},`, MaxOperations) + `{"op":"test","path":"","value":{}}]`
	_, err := JSON([]byte(`{}`), []byte(many))
	var tm *TooManyOperationsError
	assert.ErrorAs(t, err, &tm)
}

func FuzzMerge(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1}}`), []byte(`{"a":{"b":null,"c":[1]}}`))
	f.Add([]byte(`[]`), []byte(`{"x":null}`))
	f.Fuzz(func(t *testing.T, target, p []byte) {
		got, err := Merge(target, p)
		if err != nil {
			return
		}
		out := jsonv.Marshal(got)
		require.True(t, json.Valid(out))
		// Applying the same merge patch twice changes nothing more.
		again, err := Merge(out, p)
		require.NoError(t, err)
		assert.Equal(t, string(out), string(jsonv.Marshal(again)))
	})
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,2]}`), []byte(`[{"op":"move","from":"/a/0","path":"/a/-"}]`))
	f.Add([]byte(`{}`), []byte(`[{"op":"copy","from":"","path":"/x"}]`))
	f.Fuzz(func(t *testing.T, target, p []byte) {
		got, err := JSON(target, p)
		if err != nil {
			return
		}
		require.True(t, json.Valid(jsonv.Marshal(got)))
	})
}
