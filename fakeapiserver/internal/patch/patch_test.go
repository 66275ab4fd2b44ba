package patch

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/internal/growth"
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

// Copies that double the document 18 times (a 1.1 KB patch that would
// grow 64 KiB to gigabytes) stop at MaxCopyBytes with the real server's
// message.
func TestJSONPatchCopiesAreBudgeted(t *testing.T) {
	target := `{"data":{"a":"` + strings.Repeat("x", 64<<10) + `"}}`
	var ops []string
	for i := range 18 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/data","path":"/data/c%d"}`, i))
	}
	patchDoc := "[" + strings.Join(ops, ",") + "]"
	require.Less(t, len(patchDoc), 1200)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := JSON([]byte(target), []byte(patchDoc))
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var ae *ApplyError
	require.ErrorAs(t, err, &ae)
	assert.Regexp(t, `^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$`, ae.Msg)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated while patching")

	// Copies within the budget apply.
	doc, err := JSON([]byte(`{"a":{"b":1}}`), []byte(`[{"op":"copy","from":"/a","path":"/c"}]`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":{"b":1},"c":{"b":1}}`, string(jsonv.Marshal(doc)))
}

// A large merge patch gives what applying its members one at a time gives
// (the scan each member used to take), in time linear in its size.
func TestLargeMergePatchMatchesMemberByMember(t *testing.T) {
	var target, patchDoc strings.Builder
	target.WriteString(`{`)
	for i := range 200 {
		if i > 0 {
			target.WriteString(",")
		}
		fmt.Fprintf(&target, `"k%d":{"v":%d,"w":1}`, i, i)
	}
	target.WriteString(`}`)
	patchDoc.WriteString(`{"k5":null,"k50":{"w":null,"x":2},"n1":{"a":null,"b":1},"k199":null,"k7":"flat"`)
	for i := range 60 {
		fmt.Fprintf(&patchDoc, `,"new%d":%d`, i, i)
	}
	patchDoc.WriteString(`}`)
	got, err := Merge([]byte(target.String()), []byte(patchDoc.String()))
	require.NoError(t, err)

	tv, err := jsonv.Parse([]byte(target.String()))
	require.NoError(t, err)
	pv, err := jsonv.Parse([]byte(patchDoc.String()))
	require.NoError(t, err)
	want := tv.Value
	for _, m := range pv.Value.Obj {
		want = MergeValues(want, jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{m}})
	}
	assert.Equal(t, string(jsonv.Marshal(want)), string(jsonv.Marshal(got)))

	everyKey := func(n int) (target, patch jsonv.Value) {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"k%d":"v"`, i)
		}
		b.WriteString(`}`)
		tv, err := jsonv.Parse([]byte(b.String()))
		require.NoError(t, err)
		pv, err := jsonv.Parse([]byte(strings.ReplaceAll(b.String(), `"v"`, `"w"`)))
		require.NoError(t, err)
		return tv.Value, pv.Value
	}
	small, smallPatch := everyKey(1_000)
	assert.True(t, jsonv.Equal(smallPatch, MergeValues(small, smallPatch)), "every key takes the patch's value")
	growth.Linear(t, "MergeValues of an object and a patch of every key", 1_000, func(n int) func() {
		target, patch := everyKey(n)
		return func() { MergeValues(target, patch) }
	})
}
