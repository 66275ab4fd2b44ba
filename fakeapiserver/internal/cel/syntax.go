package cel

import (
	"sync"

	"github.com/google/cel-go/cel"
)

// syntaxEnv parses expressions; it declares nothing, since a parse does
// not look names up.
var syntaxEnv = sync.OnceValues(func() (*cel.Env, error) { return cel.NewEnv(Libraries()...) })

// SyntaxError returns the real server's refusal of an expression that
// does not parse ("compilation failed: ERROR: <input>:1:4: Syntax error:
// …"), or "" when it parses. It serves the expressions whose environment
// the fake server does not declare (a device selector's), whose other
// compile errors it leaves unchecked.
func SyntaxError(expr string) string {
	env, err := syntaxEnv()
	if err != nil {
		return ""
	}
	if _, iss := env.Parse(expr); iss != nil && iss.Err() != nil {
		return "compilation failed: " + iss.String()
	}
	return ""
}
