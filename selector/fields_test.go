package selector

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFields(t *testing.T) {
	tests := []struct {
		in    string
		terms []FieldRequirement
		str   string
	}{
		{"", nil, ""},
		{",", nil, ""},
		{",,", nil, ""},
		{"metadata.name=web", []FieldRequirement{{"metadata.name", Equals, "web"}}, "metadata.name=web"},
		{"metadata.name==web", []FieldRequirement{{"metadata.name", Equals, "web"}}, "metadata.name=web"},
		{"status.phase!=Running", []FieldRequirement{{"status.phase", NotEquals, "Running"}}, "status.phase!=Running"},
		{"a=", []FieldRequirement{{"a", Equals, ""}}, "a="},
		{"a!=", []FieldRequirement{{"a", NotEquals, ""}}, "a!="},
		{"b=2,a=1", []FieldRequirement{{"a", Equals, "1"}, {"b", Equals, "2"}}, "a=1,b=2"},
		{"a=1,,b=2,", []FieldRequirement{{"a", Equals, "1"}, {"b", Equals, "2"}}, "a=1,b=2"},
		{`a=x\,y`, []FieldRequirement{{"a", Equals, "x,y"}}, `a=x\,y`},
		{`a=x\=y`, []FieldRequirement{{"a", Equals, "x=y"}}, `a=x\=y`},
		{`a=x\\y`, []FieldRequirement{{"a", Equals, `x\y`}}, `a=x\\y`},
		{`a=\\\,\=`, []FieldRequirement{{"a", Equals, `\,=`}}, `a=\\\,\=`},
		{`a!=\=`, []FieldRequirement{{"a", NotEquals, "="}}, `a!=\=`},
		{"a=!x", []FieldRequirement{{"a", Equals, "!x"}}, "a=!x"},
		{"a!b=c", []FieldRequirement{{"a!b", Equals, "c"}}, "a!b=c"},
		// Whitespace is data, as on the API server (which then rejects the
		// unknown field "a ").
		{"a = b", []FieldRequirement{{"a ", Equals, " b"}}, "a = b"},
		{"spec.nodeName=node-1,metadata.namespace!=kube-system", []FieldRequirement{
			{"metadata.namespace", NotEquals, "kube-system"}, {"spec.nodeName", Equals, "node-1"},
		}, "metadata.namespace!=kube-system,spec.nodeName=node-1"},
		{"a=1,a!=2,a=0", []FieldRequirement{{"a", NotEquals, "2"}, {"a", Equals, "0"}, {"a", Equals, "1"}}, "a!=2,a=0,a=1"},
		{"a=ключ", []FieldRequirement{{"a", Equals, "ключ"}}, "a=ключ"},
	}
	for _, tt := range tests {
		sel, err := ParseFields(tt.in)
		require.NoError(t, err, "ParseFields(%q)", tt.in)
		assert.Equal(t, tt.terms, sel.Requirements(), "ParseFields(%q).Requirements()", tt.in)
		assert.Equal(t, tt.str, sel.String(), "ParseFields(%q).String()", tt.in)
		assert.Equal(t, len(tt.terms) == 0, sel.Empty())
		again, err := ParseFields(sel.String())
		require.NoError(t, err, "ParseFields(%q), the canonical form", sel.String())
		assert.Equal(t, sel.Requirements(), again.Requirements())
	}
}

func TestParseFieldsErrors(t *testing.T) {
	tests := []struct {
		in  string
		pos int
		msg string
	}{
		{"a", 0, `term "a" has no operator; expected field=value, field==value or field!=value`},
		{"a=1,b", 4, `term "b" has no operator`},
		{"=a", 0, "a term needs a field name before its operator"},
		{"a,b=c", 0, `term "a" has no operator`},
		{"!=a", 0, "a term needs a field name"},
		{"a=b=c", 3, `value of "a": '=' in a value must be escaped as "\="`},
		{"a===b", 3, `'=' in a value must be escaped`},
		{"a!==b", 3, `'=' in a value must be escaped`},
		{`a=b\`, 3, `a value may not end with a lone '\'`},
		{`a=b\x`, 3, `invalid escape sequence "\x"; only "\\", "\," and "\=" are allowed`},
		{`x=1,a=\n`, 6, `invalid escape sequence "\n"`},
		{`a\,b=c`, 0, `field name "a\,b" may not contain '\', ',' or '='`},
		{`a\=b`, 0, `field name "a\" may not contain`},
	}
	for _, tt := range tests {
		sel, err := ParseFields(tt.in)
		require.Error(t, err, "ParseFields(%q) = %q, want an error", tt.in, sel.String())
		var perr *ParseError
		require.True(t, errors.As(err, &perr), "ParseFields(%q) error %T is not a *ParseError", tt.in, err)
		assert.Equal(t, "field", perr.Kind)
		assert.Equal(t, tt.pos, perr.Pos, "ParseFields(%q): position (%v)", tt.in, err)
		assert.Contains(t, perr.Msg, tt.msg, "ParseFields(%q)", tt.in)
		assert.Contains(t, err.Error(), "invalid field selector")
	}
}

func TestFieldsMatches(t *testing.T) {
	pod := map[string]string{
		"metadata.name":      "web-1",
		"metadata.namespace": "default",
		"spec.nodeName":      "",
		"status.phase":       "Running",
	}
	get := func(f string) (string, bool) { v, ok := pod[f]; return v, ok }
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"metadata.name=web-1", true},
		{"metadata.name==web-1", true},
		{"metadata.name=web-2", false},
		{"metadata.name!=web-2", true},
		{"metadata.name!=web-1", false},
		{"metadata.name=web-1,status.phase=Running", true},
		{"metadata.name=web-1,status.phase=Pending", false},
		// An absent field reads as "".
		{"status.hostIP!=10.0.0.1", true},
		{"status.hostIP!=", false},
		{"status.hostIP=", true},
		{"status.hostIP=10.0.0.1", false},
		{"spec.nodeName=", true},
		{"spec.nodeName!=", false},
	}
	for _, tt := range tests {
		sel, err := ParseFields(tt.sel)
		require.NoError(t, err, "ParseFields(%q)", tt.sel)
		assert.Equal(t, tt.want, sel.Matches(get), "ParseFields(%q).Matches(pod)", tt.sel)
	}
}

func TestRequiresExactMatch(t *testing.T) {
	sel, err := ParseFields(`metadata.namespace!=x,metadata.name==a\,b`)
	require.NoError(t, err)
	v, ok := sel.RequiresExactMatch("metadata.name")
	assert.True(t, ok)
	assert.Equal(t, "a,b", v)
	_, ok = sel.RequiresExactMatch("metadata.namespace")
	assert.False(t, ok, "a != term is not an exact match")
	_, ok = sel.RequiresExactMatch("spec.nodeName")
	assert.False(t, ok)
	_, ok = Fields{}.RequiresExactMatch("metadata.name")
	assert.False(t, ok)
}

func TestFieldsFromSet(t *testing.T) {
	sel, err := FieldsFromSet(map[string]string{"metadata.name": `a,b=c\d`, "metadata.namespace": "ns"})
	require.NoError(t, err)
	assert.Equal(t, `metadata.name=a\,b\=c\\d,metadata.namespace=ns`, sel.String())
	again, err := ParseFields(sel.String())
	require.NoError(t, err)
	assert.Equal(t, sel.Requirements(), again.Requirements())

	for _, bad := range []string{"", "a,b", "a=b", `a\b`, "a!"} {
		_, err := FieldsFromSet(map[string]string{bad: "v"})
		assert.Error(t, err, "FieldsFromSet with field %q", bad)
	}
	assert.Equal(t, `x\\\,\=y`, EscapeFieldValue(`x\,=y`))
	assert.Equal(t, "plain", EscapeFieldValue("plain"))
}
