package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// An object of 150,000 keys parses in linear time, duplicates still found:
// a scan of the members per key took minutes.
func TestParseLargeObjectInLinearTime(t *testing.T) {
	for _, n := range []int{80_000, 150_000} {
		data := bigObject(n, true)
		start := time.Now()
		res, err := Parse(data)
		took := time.Since(start)
		require.NoError(t, err)
		assert.Len(t, res.Value.Obj, n)
		assert.Equal(t, []string{"k0"}, res.Duplicates)
		assert.Equal(t, "again", res.Value.Get("k0").Str, "the last occurrence wins")
		assert.Less(t, took, 20*time.Second, "%d keys took %v (a scan per key: minutes)", n, took)
		t.Logf("%d keys (%d KiB): %v", n, len(data)>>10, took)
	}
}

// Equal is linear for large objects in any member order.
func TestEqualLargeObjects(t *testing.T) {
	a, err := Parse(bigObject(100_000, false))
	require.NoError(t, err)
	b := a.Value.Clone()
	slices.Reverse(b.Obj)
	start := time.Now()
	assert.True(t, Equal(a.Value, b))
	b.Obj[5].Value = NewString("other")
	assert.False(t, Equal(a.Value, b))
	assert.Less(t, time.Since(start), 20*time.Second)
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
