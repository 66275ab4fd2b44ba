package jsonv

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

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
	for _, s := range []string{"plain", "a<b>&c", "quote\"back\\slash", "ctl\x00\x1f\n\r\t", "bad\xffutf8", "sep\u2028\u2029", "日本"} {
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
