package selector

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLabelsCanonicalForm(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"   \t\r\n ", ""},
		{"x", "x"},
		{"!x", "!x"},
		{" ! x ", "!x"},
		{"x=a", "x=a"},
		{"x = a", "x=a"},
		{"x==a", "x==a"},
		{"x!=a", "x!=a"},
		{"x=", "x="},
		{"x==", "x=="},
		{"x!=", "x!="},
		{"x=,y", "x=,y"},
		{"x in (b,a)", "x in (a,b)"},
		{"x in(a)", "x in (a)"},
		{"x notin (a,a,b)", "x notin (a,b)"},
		{"x in (foo,,baz)", "x in (,baz,foo)"},
		{"x in ()", "x in ()"},
		{"x in (,)", "x in ()"},
		{"x in (a,)", "x in (,a)"},
		{"x in (,a)", "x in (,a)"},
		{"x in ( a , b )", "x in (a,b)"},
		{"x>5", "x>5"},
		{"x < 10", "x<10"},
		{"x>007", "x>007"},
		{"b=1,a=2,c", "a=2,b=1,c"},
		{"env in (prod,qa),!canary", "!canary,env in (prod,qa)"},
		{"a=1,a=2", "a=1,a=2"}, // same key twice: both kept, order kept
		{"in", "in"},           // the keywords are plain words where a key is expected
		{"in in (in,notin)", "in in (in,notin)"},
		{"notin notin (x)", "notin notin (x)"},
		{"x=in", "x=in"},
		{"example.com/app=web", "example.com/app=web"},
		{"a.b-c.d/My_Name.x=Value-1.2_3", "a.b-c.d/My_Name.x=Value-1.2_3"},
		{"k8s.io/initial-events-end", "k8s.io/initial-events-end"},
		{"x\t=\ta\n,\ny", "x=a,y"},
	}
	for _, tt := range tests {
		sel, err := ParseLabels(tt.in)
		require.NoError(t, err, "ParseLabels(%q)", tt.in)
		assert.Equal(t, tt.want, sel.String(), "ParseLabels(%q).String()", tt.in)
		assert.Equal(t, tt.want == "", sel.Empty(), "ParseLabels(%q).Empty()", tt.in)
		again, err := ParseLabels(sel.String())
		require.NoError(t, err, "ParseLabels(%q) of the canonical form", sel.String())
		assert.Equal(t, sel.String(), again.String())
	}
}

func TestParseLabelsRequirements(t *testing.T) {
	sel, err := ParseLabels("x in (b,a,b), !y, z>3, w")
	require.NoError(t, err)
	reqs := sel.Requirements()
	require.Len(t, reqs, 4)
	got := make([]string, 0, len(reqs))
	for _, r := range reqs {
		got = append(got, r.Key()+" "+string(r.Operator())+" "+strings.Join(r.Values(), "|"))
	}
	assert.Equal(t, []string{"w exists ", "x in a|b", "y ! ", "z gt 3"}, got)

	// The returned slices are copies.
	reqs[0] = Requirement{}
	vals := sel.Requirements()[1].Values()
	vals[0] = "changed"
	assert.Equal(t, "w,x in (a,b),!y,z>3", sel.String())
}

func TestLabelsMatches(t *testing.T) {
	objects := map[string]map[string]string{
		"none":     nil,
		"web":      {"app": "web"},
		"web-prod": {"app": "web", "env": "prod"},
		"db-qa":    {"app": "db", "env": "qa"},
		"empty":    {"app": ""},
		"num5":     {"n": "5"},
		"num-3":    {"n": "-3"},
		"numbig":   {"n": "9223372036854775807"},
		"numtext":  {"n": "five"},
		"canary":   {"app": "web", "canary": "true"},
	}
	tests := []struct {
		sel  string
		want []string // the names of the objects that match
	}{
		{"", []string{"canary", "db-qa", "empty", "none", "num-3", "num5", "numbig", "numtext", "web", "web-prod"}},
		{"app", []string{"canary", "db-qa", "empty", "web", "web-prod"}},
		{"!app", []string{"none", "num-3", "num5", "numbig", "numtext"}},
		{"app=web", []string{"canary", "web", "web-prod"}},
		{"app==web", []string{"canary", "web", "web-prod"}},
		// != matches objects that lack the key.
		{"app!=web", []string{"db-qa", "empty", "none", "num-3", "num5", "numbig", "numtext"}},
		// = with an empty value needs the key, present and empty.
		{"app=", []string{"empty"}},
		{"app!=", []string{"canary", "db-qa", "none", "num-3", "num5", "numbig", "numtext", "web", "web-prod"}},
		// in needs the key; notin matches objects that lack it.
		{"env in (prod,qa)", []string{"db-qa", "web-prod"}},
		{"env notin (prod)", []string{"canary", "db-qa", "empty", "none", "num-3", "num5", "numbig", "numtext", "web"}},
		{"app in (,db)", []string{"db-qa", "empty"}},
		{"app notin (,web)", []string{"db-qa", "none", "num-3", "num5", "numbig", "numtext"}},
		// > and < need the key and an integer value.
		{"n>4", []string{"num5", "numbig"}},
		{"n>5", []string{"numbig"}},
		{"n<5", []string{"num-3"}},
		{"n<0", []string{"num-3"}},
		{"n>9223372036854775806", []string{"numbig"}},
		{"app=web,!canary", []string{"web", "web-prod"}},
		{"app=web,env=prod", []string{"web-prod"}},
		{"app=web,app=db", nil},
	}
	for _, tt := range tests {
		sel, err := ParseLabels(tt.sel)
		require.NoError(t, err, "ParseLabels(%q)", tt.sel)
		var got []string
		for _, name := range sortedKeys(objects) {
			if sel.Matches(objects[name]) {
				got = append(got, name)
			}
		}
		assert.Equal(t, tt.want, got, "objects matching %q", tt.sel)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}

func TestParseLabelsErrors(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	long254 := strings.Repeat("a", 254)
	tests := []struct {
		in  string
		pos int
		msg string
	}{
		// Structure.
		{",", 0, `found ",", expected a label key`},
		{"x,", 2, "expected a requirement after ','"},
		{"x,,y", 2, `found ",", expected a label key`},
		{",x", 0, `found ",", expected a label key`},
		{"x y", 2, `found "y" after key "x", expected one of =, ==, !=, in, notin`},
		{"x=a b", 4, `found "b", expected ',' or end of string`},
		{"x=a=b", 3, `found "=", expected ',' or end of string`},
		{"=a", 0, `found "=", expected a label key`},
		{"!", 1, "found end of string, expected a label key"},
		{"!!x", 1, `found "!", expected a label key`},
		{"!x=a", 2, `found "=" after "!x"; a negated key takes no operator`},
		{"!x in (a)", 3, `found "in" after "!x"; a negated key takes no operator`},
		{"x=(a)", 2, `found "(" after "=", expected a value`},
		{"x=!a", 2, `found "!" after "=", expected a value`},
		{"(x)", 0, `found "(", expected a label key`},
		// Sets.
		{"x in", 4, "found end of string, expected '(' to open the set of values"},
		{"x in a", 5, `found "a", expected '(' to open the set of values`},
		{"x in (a", 7, "found end of string in a set of values, expected ',' or ')'"},
		{"x in (a b)", 8, `found "b" in a set of values, expected ',' or ')'`},
		{"x in (=)", 6, `found "=" in a set of values, expected a value, ',' or ')'`},
		{"x in (a)(b)", 8, `found "(", expected ',' or end of string`},
		{"x notin", 7, "expected '(' to open the set of values"},
		{"xin (a)", 4, `found "(" after key "xin"`}, // whitespace is needed around in
		// Numbers.
		{"x>a", 2, `operator "gt" needs a decimal integer, got "a"`},
		{"x<", 2, `operator "lt" needs a decimal integer, got ""`},
		{"x>1.5", 2, `needs a decimal integer, got "1.5"`},
		{"x>99999999999999999999", 2, "needs a decimal integer"},
		{"x>-1", 2, `label value "-1": a value must be empty or begin and end with a letter or digit`},
		// Keys.
		{"-x", 0, `label key "-x": the name part must begin and end with a letter or digit`},
		{"x-", 0, `the name part must begin and end`},
		{"a b/c", 2, `found "b/c" after key "a"`},
		{"a/b/c", 0, `label key "a/b/c": a key may contain at most one '/'`},
		{"/x", 0, "the prefix before '/' must not be empty"},
		{"a/", 0, "the name part must not be empty"},
		{"Example.com/x", 0, "the prefix must be a DNS subdomain"},
		{"a..b/x", 0, "the prefix must be a DNS subdomain"},
		{"-a.b/x", 0, "the prefix must be a DNS subdomain"},
		{"a_b/x", 0, "the prefix must be a DNS subdomain"},
		{long254 + "/x", 0, "the prefix is 254 characters long; at most 253 are allowed"},
		{long63 + "a", 0, "the name part is 64 characters long; at most 63 are allowed"},
		{"x@y", 0, "the name part must begin and end with a letter or digit and contain only"},
		{"ключ=a", 0, "the name part must begin and end"},
		{"x\x00", 0, "the name part must begin and end"},
		// Values.
		{"x=" + long63 + "b", 2, "the value is 64 characters long; at most 63 are allowed"},
		{"x=-a", 2, `label value "-a": a value must be empty or begin and end`},
		{"x in (a,b_)", 8, `label value "b_"`},
		{"x=a/b", 2, `label value "a/b"`},
	}
	for _, tt := range tests {
		sel, err := ParseLabels(tt.in)
		require.Error(t, err, "ParseLabels(%q) = %q, want an error", tt.in, sel.String())
		var perr *ParseError
		require.True(t, errors.As(err, &perr), "ParseLabels(%q) error %T is not a *ParseError", tt.in, err)
		assert.Equal(t, "label", perr.Kind)
		assert.Equal(t, tt.in, perr.Input)
		assert.Equal(t, tt.pos, perr.Pos, "ParseLabels(%q): position (%v)", tt.in, err)
		assert.Contains(t, perr.Msg, tt.msg, "ParseLabels(%q)", tt.in)
		assert.True(t, sel.Empty(), "ParseLabels(%q) returned requirements with its error", tt.in)
	}
}

func TestLabelKeyAndValueLimits(t *testing.T) {
	prefix253 := strings.Repeat("a", 61) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63)
	require.Len(t, prefix253, 253)
	name63 := "A" + strings.Repeat("z", 61) + "9"
	assert.NoError(t, ValidateLabelKey(prefix253+"/"+name63))
	assert.NoError(t, ValidateLabelValue(name63))
	assert.NoError(t, ValidateLabelValue(""))
	assert.NoError(t, ValidateLabelValue("a"))
	assert.NoError(t, ValidateLabelValue("a-._b"))
	assert.ErrorContains(t, ValidateLabelValue("a b"), `label value "a b"`)
	assert.ErrorContains(t, ValidateLabelKey(""), "the name part must not be empty")

	sel, err := ParseLabels(prefix253 + "/" + name63 + " in (" + name63 + ")")
	require.NoError(t, err)
	assert.True(t, sel.Matches(map[string]string{prefix253 + "/" + name63: name63}))
}

func TestNewRequirement(t *testing.T) {
	r, err := NewRequirement("x", In, "b", "a", "b")
	require.NoError(t, err)
	assert.Equal(t, "x in (a,b)", r.String())
	assert.Equal(t, []string{"a", "b"}, r.Values())

	bad := []struct {
		key    string
		op     Operator
		values []string
		msg    string
	}{
		{"x", Exists, []string{"a"}, `operator "exists" takes no values, got 1`},
		{"x", DoesNotExist, []string{"a"}, `operator "!" takes no values`},
		{"x", Equals, nil, `operator "=" takes exactly one value, got 0`},
		{"x", NotEquals, []string{"a", "b"}, `operator "!=" takes exactly one value, got 2`},
		{"x", In, nil, `operator "in" needs at least one value`},
		{"x", GreaterThan, []string{"x"}, `operator "gt" needs a decimal integer`},
		{"x", LessThan, []string{"1", "2"}, `operator "lt" takes exactly one value`},
		{"x", "~", []string{"a"}, `unknown operator "~"`},
		{"x", Equals, []string{"-"}, `value "-"`},
		{"-", Exists, nil, `label key "-"`},
	}
	for _, tt := range bad {
		_, err := NewRequirement(tt.key, tt.op, tt.values...)
		assert.ErrorContains(t, err, tt.msg, "NewRequirement(%q, %q, %q)", tt.key, tt.op, tt.values)
	}
}

func TestLabelsFromSetAndAdd(t *testing.T) {
	sel, err := LabelsFromSet(map[string]string{"b": "2", "a": "1"})
	require.NoError(t, err)
	assert.Equal(t, "a=1,b=2", sel.String())
	assert.True(t, sel.Matches(map[string]string{"a": "1", "b": "2", "c": "3"}))
	assert.False(t, sel.Matches(map[string]string{"a": "1"}))

	_, err = LabelsFromSet(map[string]string{"ok": "fine", "bad key": "x", "k": "bad value"})
	assert.ErrorContains(t, err, `label key "bad key"`)
	assert.ErrorContains(t, err, `value "bad value"`)

	empty, err := LabelsFromSet(nil)
	require.NoError(t, err)
	assert.True(t, empty.Empty())

	r, err := NewRequirement("0", Exists)
	require.NoError(t, err)
	more := sel.Add(r)
	assert.Equal(t, "0,a=1,b=2", more.String())
	assert.Equal(t, "a=1,b=2", sel.String(), "Add changed its receiver")
	assert.Equal(t, "0", NewLabels(r).String())
	assert.True(t, Everything().Empty())
	assert.True(t, Everything().Matches(nil))
}
