package meta_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// capture is the managedFields of one response from a real API server,
// compacted as the server sends it.
type capture struct {
	kind string
	raw  []byte
}

// realManagedFields returns the managedFields of every response in the
// server-side apply captures taken from a real API server.
func realManagedFields(t testing.TB) []capture {
	data, err := os.ReadFile("../fakeapiserver/internal/apply/testdata/cases.golden.json")
	require.NoError(t, err)
	var cases []struct {
		Steps []struct {
			Response struct {
				Kind     string `json:"kind"`
				Metadata struct {
					ManagedFields json.RawMessage `json:"managedFields"`
				} `json:"metadata"`
			} `json:"response"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(data, &cases))
	var out []capture
	for _, c := range cases {
		for _, s := range c.Steps {
			if raw := s.Response.Metadata.ManagedFields; raw != nil {
				var b bytes.Buffer
				require.NoError(t, json.Compact(&b, raw))
				out = append(out, capture{s.Response.Kind, b.Bytes()})
			}
		}
	}
	require.NotEmpty(t, out, "the captures hold managedFields")
	return out
}

// What a real server sends for a built-in type comes back byte for byte,
// through every way of decoding and encoding it. A custom resource's
// entries come with their keys sorted (the server encodes custom
// resources from maps, metadata included); they come back equal as JSON,
// in the built-in order, like the rest of the metadata.
func TestManagedFieldsRoundTripRealCaptures(t *testing.T) {
	captures := append(realManagedFields(t), capture{"Pod", managedFieldsOf(t, podJSON(t))})
	builtin := 0
	for _, c := range captures {
		raw := c.raw
		m, err := meta.ParseManagedFields(raw)
		require.NoError(t, err)
		out, err := m.MarshalJSON()
		require.NoError(t, err)
		if c.kind == "Gizmo" {
			assert.JSONEq(t, string(raw), string(out), "custom resource")
			continue
		}
		builtin++
		assert.Equal(t, string(raw), string(out), "%s: ParseManagedFields then MarshalJSON", c.kind)

		var viaJSON meta.ManagedFields
		require.NoError(t, json.Unmarshal(raw, &viaJSON))
		assert.Equal(t, m, viaJSON, "encoding/json decodes to the same entries")
		out, err = json.Marshal(meta.ObjectMeta{ManagedFields: m})
		require.NoError(t, err)
		assert.Equal(t, `{"managedFields":`+string(raw)+`}`, string(out), "inside ObjectMeta")
	}
	assert.Greater(t, builtin, 40, "captures of built-in types")
}

// managedFieldsOf returns the raw metadata.managedFields of an object.
func managedFieldsOf(t testing.TB, obj []byte) []byte {
	var o struct {
		Metadata struct {
			ManagedFields json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(obj, &o))
	return o.Metadata.ManagedFields
}

func TestManagedFieldsDecode(t *testing.T) {
	m, err := meta.ParseManagedFields([]byte(` [ {"manager":"kubelet","operation":"Update","apiVersion":"v1",
		"time":"2025-03-14T10:27:02+01:00","fieldsType":"FieldsV1","fieldsV1":{ "f:status" : { "f:phase":{} } },
		"subresource":"status","unknown":[1]}, null ] `))
	require.NoError(t, err)
	require.Len(t, m, 2)
	assert.Equal(t, meta.ManagedFieldsEntry{}, m[1], "null is a zero entry")
	e := m[0]
	assert.Equal(t, "kubelet", e.Manager)
	assert.Equal(t, "Update", e.Operation)
	assert.Equal(t, "v1", e.APIVersion)
	assert.True(t, e.Time.Equal(time.Date(2025, 3, 14, 9, 27, 2, 0, time.UTC)), "time = %v", e.Time)
	assert.Equal(t, "FieldsV1", e.FieldsType)
	assert.Equal(t, `{"f:status":{"f:phase":{}}}`, e.FieldsV1.String(), "fieldsV1 is compacted")
	assert.Equal(t, "status", e.Subresource)
	out, err := m.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2025-03-14T09:27:02Z","fieldsType":"FieldsV1",`+
		`"fieldsV1":{"f:status":{"f:phase":{}}},"subresource":"status"},{}]`, string(out), "unknown members dropped, time in UTC")

	for _, empty := range []string{"", " ", "null"} {
		m, err := meta.ParseManagedFields([]byte(empty))
		require.NoError(t, err)
		assert.Nil(t, m, "%q", empty)
	}
	m, err = meta.ParseManagedFields([]byte(`[]`))
	require.NoError(t, err)
	assert.NotNil(t, m, "[] is an empty list, not none")
	assert.Empty(t, m)
	out, err = meta.ManagedFields(nil).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "null", string(out))
}

func TestManagedFieldsErrors(t *testing.T) {
	for _, tc := range []struct {
		in, field string
	}{
		{`{"manager":"m"}`, "managedFields"},
		{`[1]`, "managedFields[0]"},
		{`[{"manager":1}]`, "managedFields[0].manager"},
		{`[{},{"time":"yesterday"}]`, "managedFields[1].time"},
		{`[{"subresource":true}]`, "managedFields[0].subresource"},
	} {
		_, err := meta.ParseManagedFields([]byte(tc.in))
		var te *meta.TypeError
		require.ErrorAs(t, err, &te, "ParseManagedFields(%s)", tc.in)
		assert.Equal(t, tc.field, te.Field, "ParseManagedFields(%s)", tc.in)
	}
	for _, in := range []string{`[`, `[{"fieldsV1":{]`, `[] x`, `[{"fieldsV1":{"a":}}]`} {
		_, err := meta.ParseManagedFields([]byte(in))
		var se *meta.SyntaxError
		assert.ErrorAs(t, err, &se, "ParseManagedFields(%s)", in)
	}
	_, err := meta.NewFieldsV1([]byte(`{"a":`))
	var se *meta.SyntaxError
	assert.ErrorAs(t, err, &se)
	var f meta.FieldsV1
	assert.Error(t, f.UnmarshalJSON([]byte(`{} {}`)))
	assert.True(t, f.IsZero(), "a failed decode leaves the value")

	// In an object, the error names the whole path.
	_, err = meta.Decode[*meta.PartialObjectMetadata]([]byte(`{"metadata":{"managedFields":[{"operation":[]}]}}`))
	var te *meta.TypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "metadata.managedFields[0].operation", te.Field)
}

// Equal sets are stored once: objects decoded apart share their bytes.
func TestFieldsV1IsShared(t *testing.T) {
	inputs := podVariants(t, 2)
	a, err := meta.Decode[*meta.PartialObjectMetadata](inputs[0])
	require.NoError(t, err)
	b, err := meta.Decode[*meta.Unstructured](inputs[1])
	require.NoError(t, err)
	c, err := meta.Decode[*Pod](inputs[1])
	require.NoError(t, err)
	for i := range a.ManagedFields {
		fa, fb, fc := a.ManagedFields[i].FieldsV1, b.ManagedFields[i].FieldsV1, c.ManagedFields[i].FieldsV1
		assert.Equal(t, fa, fb)
		assert.True(t, fa == fc, "the struct decoder shares too")
		assert.Same(t, unsafe.StringData(fa.String()), unsafe.StringData(fb.String()), "entry %d: one copy of the set", i)
	}

	spaced, err := meta.NewFieldsV1([]byte(" {\n \"f:a\" : { } } "))
	require.NoError(t, err)
	compact, err := meta.NewFieldsV1([]byte(`{"f:a":{}}`))
	require.NoError(t, err)
	assert.True(t, spaced == compact, "sets are canonicalized before they are shared")
	var zero meta.FieldsV1
	assert.Equal(t, "", zero.String())
	out, err := zero.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "null", string(out))
	null, err := meta.NewFieldsV1([]byte("null"))
	require.NoError(t, err)
	assert.True(t, null.IsZero())
}

// A copied list shares no memory that either copy can change.
func TestManagedFieldsCopyIsDeep(t *testing.T) {
	p, err := meta.Decode[*meta.PartialObjectMetadata](podJSON(t))
	require.NoError(t, err)
	before, err := p.ManagedFields.MarshalJSON()
	require.NoError(t, err)
	c := p.DeepCopy()
	c.ManagedFields[0].Manager = "other"
	c.ManagedFields[0].Time = meta.NewTime(time.Unix(0, 0))
	c.ManagedFields[1].FieldsV1 = meta.FieldsV1{}
	c.ManagedFields = append(c.ManagedFields, meta.ManagedFieldsEntry{Manager: "x"})
	after, err := p.ManagedFields.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	assert.Equal(t, p.ManagedFields, slices.Clone(p.ManagedFields))
}

// FuzzParseManagedFields checks the managedFields decoder against
// encoding/json on the same input, and that what it decodes encodes to
// JSON that decodes and encodes again to the same bytes.
func FuzzParseManagedFields(f *testing.F) {
	for _, c := range realManagedFields(f)[:5] {
		f.Add(c.raw)
	}
	for _, s := range []string{`[]`, `null`, `[null,{}]`, `[{"fieldsV1":null,"time":""}]`, `[{"fieldsV1":[ 1 , "a" ]}]`,
		`[{"manager":"\u00e9\"<>","time":"2025-01-01T00:00:00.5+02:00"}]`, `{}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := meta.ParseManagedFields(data)
		if len(bytes.TrimSpace(data)) == 0 {
			require.NoError(t, err)
			return
		}
		if json.Valid(data) && comparable(data) {
			var theirs meta.ManagedFields
			theirErr := json.Unmarshal(data, &theirs)
			require.Equal(t, theirErr == nil, err == nil, "on %q: encoding/json says %v, kubecache says %v", data, theirErr, err)
			if err == nil {
				require.Equal(t, theirs, ours, "on %q", data)
			}
		}
		if err != nil {
			return
		}
		out, err := ours.MarshalJSON()
		require.NoError(t, err)
		require.True(t, json.Valid(out), "encoded invalid JSON %q from %q", out, data)
		again, err := meta.ParseManagedFields(out)
		require.NoError(t, err, "on %q", out)
		require.Len(t, again, len(ours))
		out2, err := again.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2), "from %q", data)
	})
}
