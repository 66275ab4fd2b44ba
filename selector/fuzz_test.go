package selector

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseLabels checks that the label parser never panics, reports errors
// as *ParseError inside the input, and that the canonical form of a parsed
// selector parses to the same selector.
func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{
		"", "x", "!x", "x=a", "x==a", "x!=a", "x in (a,b)", "x notin (a)", "x>1", "x<2",
		"x in (foo,,baz)", "x in ()", "a/b=c", "example.com/x in (a,b),!y,z=1",
		"in in (in)", "x,", "x in (a", "!x=a", "x>a", " x = y , z ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseLabels(s)
		if err != nil {
			var perr *ParseError
			require.True(t, errors.As(err, &perr), "ParseLabels(%q): error %T is not a *ParseError", s, err)
			require.GreaterOrEqual(t, perr.Pos, 0)
			require.LessOrEqual(t, perr.Pos, len(s))
			require.NotEmpty(t, perr.Msg)
			return
		}
		canon := sel.String()
		again, err := ParseLabels(canon)
		require.NoError(t, err, "ParseLabels(%q) → %q does not parse", s, canon)
		require.Equal(t, canon, again.String(), "ParseLabels(%q): canonical form is not stable", s)
		require.Equal(t, sel.Requirements(), again.Requirements(), "ParseLabels(%q) → %q", s, canon)

		// Matching agrees on objects built from the selector's own values.
		labels := map[string]string{}
		for _, r := range sel.Requirements() {
			if vals := r.Values(); len(vals) > 0 {
				labels[r.Key()] = vals[0]
			}
		}
		assert.Equal(t, sel.Matches(labels), again.Matches(labels))
		assert.Equal(t, sel.Matches(nil), again.Matches(nil))
	})
}

// FuzzParseFields checks the same properties for field selectors, and that
// any value survives escaping.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{
		"", "a=b", "a==b", "a!=b", `a=x\,y`, `a=\\\=`, "a=1,b!=2", "a", "=a", `a=\x`, "a=b=c", ",,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseFields(s)
		if err != nil {
			var perr *ParseError
			require.True(t, errors.As(err, &perr), "ParseFields(%q): error %T is not a *ParseError", s, err)
			require.GreaterOrEqual(t, perr.Pos, 0)
			require.LessOrEqual(t, perr.Pos, len(s))
		} else {
			canon := sel.String()
			again, err := ParseFields(canon)
			require.NoError(t, err, "ParseFields(%q) → %q does not parse", s, canon)
			require.Equal(t, sel.Requirements(), again.Requirements(), "ParseFields(%q) → %q", s, canon)
			require.Equal(t, canon, again.String())
		}

		// Any string is a value once escaped.
		one, err := FieldsFromSet(map[string]string{"f": s})
		require.NoError(t, err)
		back, err := ParseFields(one.String())
		require.NoError(t, err, "escaped value %q", one.String())
		v, ok := back.RequiresExactMatch("f")
		require.True(t, ok)
		require.Equal(t, s, v)
	})
}
