package cliprint

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const widgetJSON = `{
  "metadata": {"name": "w", "labels": {"app.kubernetes.io/name": "shop"}},
  "spec": {"replicas": 3, "paused": false, "sizes": [1, 2.5, 3],
           "containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "redis"}]},
  "status": {"conditions": [
      {"type": "Ready", "status": "True", "weight": 2},
      {"type": "Synced", "status": "False", "weight": 1}]}
}`

func decodeDoc(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func TestJSONPathFind(t *testing.T) {
	doc := decodeDoc(t, widgetJSON)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{".spec.replicas", []string{"3"}},
		{"spec.replicas", []string{"3"}},
		{"{.spec.replicas}", []string{"3"}},
		{"$.spec.replicas", []string{"3"}},
		{"{$.spec.replicas}", []string{"3"}},
		{".spec.paused", []string{"false"}},
		{".spec.containers[0].image", []string{"nginx"}},
		{".spec.containers[-1].name", []string{"b"}},
		{".spec.containers[5].name", nil},
		{".spec.containers[*].image", []string{"nginx", "redis"}},
		{".spec.containers.*.name", nil}, // .* on an array selects every element, then .name...
		{".metadata.labels['app.kubernetes.io/name']", []string{"shop"}},
		{`.metadata.labels["app.kubernetes.io/name"]`, []string{"shop"}},
		{`.status.conditions[?(@.type=="Ready")].status`, []string{"True"}},
		{`.status.conditions[?(@.type == 'Synced')].status`, []string{"False"}},
		{`.status.conditions[?(@.type!="Ready")].type`, []string{"Synced"}},
		{`.status.conditions[?(@.weight==2)].type`, []string{"Ready"}},
		{`.status.conditions[?(@.weight==2.0)].type`, []string{"Ready"}},
		{`.status.conditions[?(@.missing)].type`, nil},
		{`.status.conditions[?(@.weight)].type`, []string{"Ready", "Synced"}},
		{".spec.nothing", nil},
		{".spec.replicas.deeper", nil},
	} {
		p, err := ParseJSONPath(tc.path)
		require.NoError(t, err, tc.path)
		var got []string
		for _, v := range p.Find(doc) {
			got = append(got, scalar(v))
		}
		if tc.path == ".spec.containers.*.name" {
			// .* selects each container; .name reads each one's name.
			assert.Equal(t, []string{"a", "b"}, got, tc.path)
			continue
		}
		assert.Equal(t, tc.want, got, "Find(%q)", tc.path)
	}
}

func TestJSONPathWholeObject(t *testing.T) {
	p, err := ParseJSONPath(".")
	require.NoError(t, err)
	doc := decodeDoc(t, `{"a":1}`)
	assert.Equal(t, []any{doc}, p.Find(doc))
}

func TestJSONPathErrors(t *testing.T) {
	for _, tc := range []struct {
		path, msg string
	}{
		{".spec..replicas", "recursive descent"},
		{".spec.", "ends with a dot"},
		{".spec[0:2]", "slices and unions"},
		{".spec[a]", "not an integer"},
		{".spec[0", "missing ]"},
		{`.spec['x`, "unterminated"},
		{`.spec['x'`, "missing ] after quoted name"},
		{`.a[?(@.b>1)]`, "only == and !="},
		{`.a[?(b==1)]`, "must start with @"},
		{`.a[?(@==1)]`, "needs a member"},
		{`.a[?(@.b==)]`, "missing value"},
		{`.a[?(@.b==x)]`, "neither quoted nor a number"},
		{`.a[?(@.b==1]`, "not closed"},
		{"{.a", "missing closing brace"},
		{".a{b}", "unexpected character"},
		{"a b", `unexpected character`},
		{".a]", `unexpected character in member name`},
		{"[0]]", `unexpected ']'`},
		{strings.Repeat(".a", 600), "longer than"},
	} {
		_, err := ParseJSONPath(tc.path)
		var pe *PathError
		if assert.True(t, errors.As(err, &pe), "ParseJSONPath(%q) = %v, want a *PathError", tc.path, err) {
			assert.Contains(t, pe.Error(), tc.msg, tc.path)
			assert.Equal(t, tc.path, pe.Path)
			assert.LessOrEqual(t, pe.Offset, len(tc.path))
		}
	}
}

// FuzzJSONPath parses paths from custom resource definitions (network
// input) and evaluates them on a fixed document: no panic, errors are
// *PathError with an offset inside the input, and a parsed path evaluates.
func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{
		".spec.replicas", `.status.conditions[?(@.type=="Ready")].status`, ".a[*].b", ".a['b.c']", "{.a}",
		".a[-1]", ".", "", ".a..b", `.a[?(@.b)]`, `.a[?(@['x']!=null)]`, `[0]`, ".*",
	} {
		f.Add(s)
	}
	doc := decodeDocF(f, widgetJSON)
	f.Fuzz(func(t *testing.T, path string) {
		p, err := ParseJSONPath(path)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseJSONPath(%q) error %v is not a *PathError", path, err)
			}
			if pe.Offset < 0 || pe.Offset > len(path) {
				t.Fatalf("ParseJSONPath(%q) offset %d outside the input", path, pe.Offset)
			}
			return
		}
		for _, v := range p.Find(doc) {
			_ = scalar(v)
		}
	})
}

func decodeDocF(f *testing.F, s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		f.Fatal(err)
	}
	return v
}
