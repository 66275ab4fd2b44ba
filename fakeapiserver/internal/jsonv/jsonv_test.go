package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/growth"
)

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	in := `{"z":1.50,"a":[true,false,null,"x\u00e9"],"m":{"k":-0e+3}}`
	res, err := Parse([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, `{"z":1.50,"a":[true,false,null,"xé"],"m":{"k":-0e+3}}`, string(Marshal(res.Value)))
	assert.Empty(t, res.Duplicates)
}

func TestParseReportsDuplicates(t *testing.T) {
	res, err := Parse([]byte(`{"a":1,"b":{"c":1,"c":2},"a":3}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"b.c", "a"}, res.Duplicates)
	assert.Equal(t, `{"a":3,"b":{"c":2}}`, string(Marshal(res.Value)))
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `1.`, `1e`, `"abc`, "\"a\x01\"", `tru`, `{} x`, `{"a":1,}`, `-`, `"\x"`} {
		_, err := Parse([]byte(in))
		var se *SyntaxError
		assert.ErrorAs(t, err, &se, "Parse(%q)", in)
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	_, err := Parse([]byte(deep))
	assert.ErrorContains(t, err, "nesting deeper")
}

func TestAppendStringEscapesLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"plain", "a<b>&c", "quote\"back\\slash", "ctl\x00\x1f\b\f\n\r\t", "bad\xffutf8", "sep\u2028\u2029", "日本"} {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(AppendString(nil, s)), "AppendString(%q)", s)
	}
}

func TestEditing(t *testing.T) {
	res, err := Parse([]byte(`{"a":1,"b":2}`))
	require.NoError(t, err)
	v := res.Value
	c := v.Clone()
	v.Set("a", NewString("x"))
	v.Set("c", NewObject())
	assert.True(t, v.Delete("b"))
	assert.False(t, v.Delete("nope"))
	assert.Equal(t, `{"a":"x","c":{}}`, string(Marshal(v)))
	assert.Equal(t, `{"a":1,"b":2}`, string(Marshal(c)), "clone must not share edits")
	assert.True(t, Equal(mustParse(t, `{"a":[1,{"b":null}],"c":"d"}`), mustParse(t, `{"c":"d","a":[1,{"b":null}]}`)))
	assert.False(t, Equal(mustParse(t, `{"a":1}`), mustParse(t, `{"a":1.0}`)))
	assert.False(t, Equal(mustParse(t, `[1,2]`), mustParse(t, `[2,1]`)))
}

func mustParse(t *testing.T, s string) Value {
	t.Helper()
	res, err := Parse([]byte(s))
	require.NoError(t, err)
	return res.Value
}

// FuzzParse checks the parser against encoding/json: both accept the same
// documents (below the depth limit), and what we encode decodes to what
// encoding/json decodes from the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, `"x\ud800"`, `[1e5,-0.5,true,null]`, `{"a":1,"a":2}`, "\"\xff\"", `{"<":"&"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Parse(data)
		valid := json.Valid(data)
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) < MaxDepth {
			assert.Equal(t, valid, err == nil, "Parse(%q) err=%v, json.Valid=%v", data, err, valid)
		}
		if err != nil {
			return
		}
		out := Marshal(res.Value)
		require.True(t, json.Valid(out), "Marshal produced invalid JSON %q", out)
		var a, b any
		da := json.NewDecoder(bytes.NewReader(data))
		da.UseNumber()
		require.NoError(t, da.Decode(&a))
		db := json.NewDecoder(bytes.NewReader(out))
		db.UseNumber()
		require.NoError(t, db.Decode(&b))
		assert.Equal(t, a, b)
	})
}

// bigObject returns an object of n keys "k0".."k<n-1>", each holding a
// short string, with the key "k0" once more at the end when dup is set.
func bigObject(n int, dup bool) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":"v"`, i)
	}
	if dup {
		b.WriteString(`,"k0":"again"`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// A large object parses with its duplicate key found, the last occurrence
// winning, in time linear in the number of keys: a scan of the members per
// key took minutes at 150,000.
func TestParseLargeObjectInLinearTime(t *testing.T) {
	res, err := Parse(bigObject(1_000, true))
	require.NoError(t, err)
	assert.Len(t, res.Value.Obj, 1_000)
	assert.Equal(t, []string{"k0"}, res.Duplicates)
	assert.Equal(t, "again", res.Value.Get("k0").Str, "the last occurrence wins")

	growth.Linear(t, "Parse", 1_000, func(n int) func() {
		data := bigObject(n, true)
		return func() {
			if _, err := Parse(data); err != nil {
				t.Error(err)
			}
		}
	})
}

// Equal of large objects in any member order is linear in their size.
func TestEqualLargeObjects(t *testing.T) {
	reversed := func(n int) (Value, Value) {
		a, err := Parse(bigObject(n, false))
		require.NoError(t, err)
		b := a.Value.Clone()
		slices.Reverse(b.Obj)
		return a.Value, b
	}
	a, b := reversed(1_000)
	assert.True(t, Equal(a, b))
	b.Obj[5].Value = NewString("other")
	assert.False(t, Equal(a, b))

	growth.Linear(t, "Equal of reversed objects", 1_000, func(n int) func() {
		a, b := reversed(n)
		return func() {
			if !Equal(a, b) {
				t.Error("Equal of an object and its reversed clone is false")
			}
		}
	})
}

func TestEncodedSize(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2.5,{"b":null}],"<&>":"x\u2028\"y\u0001","é":true}`, `"plain"`, `[[],{},false]`} {
		res, err := Parse([]byte(s))
		require.NoError(t, err)
		assert.Equal(t, int64(len(Marshal(res.Value))), EncodedSize(res.Value), s)
	}
}

// TestPrunedDropsMembersAfterPruningTheirValues: drop sees a member's
// value already pruned, arrays keep every element, and v is not changed.
func TestPrunedDropsMembersAfterPruningTheirValues(t *testing.T) {
	v := mustParse(t, `{"a":null,"b":{"c":null},"d":[{"e":null,"f":1},null],"g":"x"}`)
	emptyOrNull := func(_ string, c Value) bool {
		return c.Kind == Null || (c.Kind == Object && len(c.Obj) == 0)
	}
	got := Pruned(v, emptyOrNull)
	assert.Equal(t, `{"d":[{"f":1},null],"g":"x"}`, string(Marshal(got)))
	assert.Equal(t, `{"a":null,"b":{"c":null},"d":[{"e":null,"f":1},null],"g":"x"}`, string(Marshal(v)))
}
