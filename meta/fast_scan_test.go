package meta

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		``, `plain`, `\"`, `\\`, `\/`, `\b\f\n\r\t`, `\u0041`, `\u00e9`, `é`, `日本`,
		`\ud83d\ude00`, // a surrogate pair
		`\ud83d`,       // a lone high surrogate
		`\ude00`,       // a lone low surrogate
		`\ud83dx`, `\ud83d\u0041`, `\ud83d\ud83d\ude00`,
		"\xff", "a\xffb", "\xed\xa0\x80", "\xc3", `x\u0000y`,
	} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(`"`+s+`"`), &want), "%q", s)
		assert.Equal(t, want, unquote([]byte(s)), "unquote(%q)", s)
	}
}

// FuzzScanner checks that the scanner accepts exactly what encoding/json
// accepts, that compacting agrees with json.Compact, and that every string
// decodes as encoding/json decodes it.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `0`, `-1.5e+10`, `"a\u00e9\ud83d\ude00"`, ` { "a" : [ 1 , { } ] } `,
		`{"a":01}`, `[1,]`, `"\x"`, "\"\x01\"", `1.`, `-`, `{"a"}`, `tru`, `"\ud800"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := scanner{data: data}
		err := s.skipValue()
		if err == nil {
			err = s.end()
		}
		valid := json.Valid(data)
		require.Equal(t, valid, err == nil, "scanner and encoding/json disagree on %q: %v", data, err)
		if !valid {
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			require.GreaterOrEqual(t, se.Offset, 0)
			require.LessOrEqual(t, se.Offset, len(data))
			return
		}
		var want bytes.Buffer
		require.NoError(t, json.Compact(&want, data))
		require.Equal(t, want.String(), string(appendCompact(nil, bytes.TrimSpace(data))))

		if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '"' {
			var str string
			require.NoError(t, json.Unmarshal(d, &str))
			require.Equal(t, str, unquote(d[1:len(d)-1]))
		}
	})
}
