package meta_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestPeekMeta(t *testing.T) {
	tests := []struct {
		in   string
		want meta.PeekedMeta
	}{
		{`{}`, meta.PeekedMeta{}},
		{` {"kind":"Pod"} `, meta.PeekedMeta{Kind: "Pod"}},
		{`{"spec":{"metadata":{"name":"nested"}},"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"b","resourceVersion":"3","uid":"u","labels":{"name":"x"}}}`,
			meta.PeekedMeta{Kind: "Pod", APIVersion: "v1", Name: "a", Namespace: "b", ResourceVersion: "3", UID: "u"}},
		{`{"kind":null,"metadata":null}`, meta.PeekedMeta{}},
		{`{"kind":"A","kind":"B"}`, meta.PeekedMeta{Kind: "B"}},
		{`{"metadata":{"name":"a","namespace":"x"},"metadata":{"name":"b"}}`, meta.PeekedMeta{Name: "b"}},
		{`{"metadata":{"name":"a\"b\\c\u00e9\ud83d\ude00\n"}}`, meta.PeekedMeta{Name: "a\"b\\cé😀\n"}},
		{`{"\u006bind":"Pod","m\u0065tadata":{"n\u0061me":"x"}}`, meta.PeekedMeta{Kind: "Pod", Name: "x"}},
		{`{"Kind":"Pod","metadata":{"Name":"x"}}`, meta.PeekedMeta{}}, // keys match exactly
		{"{\"metadata\":{\"name\":\"\xff\"}}", meta.PeekedMeta{Name: "\ufffd"}},
	}
	for _, tt := range tests {
		got, err := meta.PeekMeta([]byte(tt.in))
		require.NoError(t, err, "PeekMeta(%s)", tt.in)
		assert.Equal(t, tt.want, got, "PeekMeta(%s)", tt.in)
	}

	got, err := meta.PeekMeta(podJSON(t))
	require.NoError(t, err)
	assert.Equal(t, meta.PeekedMeta{Kind: "Pod", APIVersion: "v1", Namespace: "production", Name: "web-7d9f8c6b5-x2k4q",
		ResourceVersion: "4827163", UID: "3f2a1c9e-8b7d-4e6f-a5c4-2d1e0f9a8b7c"}, got)
}

func TestPeekMetaErrors(t *testing.T) {
	tests := []struct {
		in    string
		field string // "" for a syntax error
	}{
		{``, ""},
		{`   `, ""},
		{`{`, ""},
		{`{"kind":"Pod"`, ""},
		{`{"kind":"Pod"}}`, ""},
		{`{"spec":[1,2,]}`, ""},
		{`{"spec":"\q"}`, ""},
		{`null`, "object"},
		{`[{"kind":"Pod"}]`, "object"},
		{`"Pod"`, "object"},
		{`{"kind":1}`, "kind"},
		{`{"apiVersion":["v1"]}`, "apiVersion"},
		{`{"metadata":"x"}`, "metadata"},
		{`{"metadata":{"name":1}}`, "metadata.name"},
		{`{"metadata":{"namespace":{}}}`, "metadata.namespace"},
		{`{"metadata":{"resourceVersion":12}}`, "metadata.resourceVersion"},
		{`{"metadata":{"uid":false}}`, "metadata.uid"},
	}
	for _, tt := range tests {
		_, err := meta.PeekMeta([]byte(tt.in))
		require.Error(t, err, "PeekMeta(%s)", tt.in)
		if tt.field == "" {
			var se *meta.SyntaxError
			assert.ErrorAs(t, err, &se, "PeekMeta(%s)", tt.in)
			continue
		}
		var te *meta.TypeError
		require.ErrorAs(t, err, &te, "PeekMeta(%s)", tt.in)
		assert.Equal(t, tt.field, te.Field, "PeekMeta(%s)", tt.in)
	}
}

// peekReference computes what PeekMeta must return from encoding/json's
// generic decoding: exact keys, the last repeated key wins, null is "".
func peekReference(data []byte) (meta.PeekedMeta, bool) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return meta.PeekedMeta{}, false
	}
	var p meta.PeekedMeta
	str := func(v any, dst *string) bool {
		switch v := v.(type) {
		case nil:
			return true
		case string:
			*dst = v
			return true
		}
		return false
	}
	ok := str(m["kind"], &p.Kind) && str(m["apiVersion"], &p.APIVersion)
	switch md := m["metadata"].(type) {
	case nil:
	case map[string]any:
		ok = ok && str(md["name"], &p.Name) && str(md["namespace"], &p.Namespace) &&
			str(md["resourceVersion"], &p.ResourceVersion) && str(md["uid"], &p.UID)
	default:
		ok = false
	}
	return p, ok
}

func FuzzPeekMeta(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"b","resourceVersion":"1","uid":"u"}}`,
		`{"metadata":{"name":"a\"\u00e9\ud83d"}}`, `{"kind":1}`, `{"metadata":null}`, `[]`, `null`, `{"a":[{"b":"\\"}]}`,
		`{"kind":"A","kind":"B"}`, `{"\u006bind":"x"}`, "{\"metadata\":{\"name\":\"\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Add(podJSON(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := meta.PeekMeta(data)
		want, ok := peekReference(data)
		require.Equal(t, ok, err == nil, "PeekMeta(%q): error %v", data, err)
		if ok {
			require.Equal(t, want, got, "PeekMeta(%q)", data)
		}
	})
}
