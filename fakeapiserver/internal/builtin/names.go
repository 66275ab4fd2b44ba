package builtin

import (
	"regexp"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// The real server's format checks and their messages.

const (
	configKeyFmt = "[-._a-zA-Z0-9]+"
	qnameCharFmt = "[A-Za-z0-9]"
	qnameExtFmt  = "[-A-Za-z0-9_.]"
	qnameFmt     = "(" + qnameCharFmt + qnameExtFmt + "*)?" + qnameCharFmt
	percentFmt   = "[0-9]+%"
)

var (
	configKeyRE = regexp.MustCompile("^" + configKeyFmt + "$")
	qnameRE     = regexp.MustCompile("^" + qnameFmt + "$")
	percentRE   = regexp.MustCompile("^" + percentFmt + "$")
	svcNameRE   = regexp.MustCompile("^[a-z0-9]([a-z0-9-]*[a-z0-9])*$")
	hasLetterRE = regexp.MustCompile("[a-z]")
)

// configKeyProblems checks a ConfigMap or Secret key.
func configKeyProblems(s string) []string {
	var out []string
	if len(s) > 253 {
		out = append(out, "must be no more than 253 characters")
	}
	if !configKeyRE.MatchString(s) {
		out = append(out, validation.RegexMessage("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configKeyFmt, "key.name", "KEY_NAME", "key-name"))
	}
	switch {
	case s == ".":
		out = append(out, "must not be '.'")
	case s == "..":
		out = append(out, "must not be '..'")
	case strings.HasPrefix(s, ".."):
		out = append(out, "must not start with '..'")
	}
	return out
}

// portNameProblems checks an IANA service name (a port's name).
func portNameProblems(s string) []string {
	var out []string
	if len(s) > 15 {
		out = append(out, "must be no more than 15 characters")
	}
	if !svcNameRE.MatchString(s) {
		out = append(out, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if strings.Contains(s, "--") {
		out = append(out, "must not contain consecutive hyphens")
	}
	if len(s) > 0 && !hasLetterRE.MatchString(s) {
		out = append(out, "must contain at least one letter (a-z)")
	}
	return out
}

// envVarNameProblems checks an environment variable name.
func envVarNameProblems(s string) []string {
	for _, r := range s {
		if r < 32 || r > 126 || r == '=' {
			return []string{"a valid environment variable name must consist only of printable ASCII characters other than '='"}
		}
	}
	return nil
}

// qualifiedNameProblems checks a label key or other qualified name:
// an optional DNS subdomain prefix, a slash, and a name part.
func qualifiedNameProblems(s string) []string {
	var out []string
	name := s
	if prefix, rest, ok := strings.Cut(s, "/"); ok {
		if prefix == "" {
			out = append(out, "prefix part must be non-empty")
		} else {
			for _, p := range validation.SubdomainProblems(prefix) {
				out = append(out, "prefix part "+p)
			}
		}
		name = rest
		if strings.Contains(rest, "/") {
			return append(out, validation.RegexMessage("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyName", "my.name", "123-abc")+" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
		}
	}
	switch {
	case name == "":
		out = append(out, "name part must be non-empty")
	case len(name) > 63:
		out = append(out, "name part must be no more than 63 characters")
	}
	if !qnameRE.MatchString(name) {
		out = append(out, validation.RegexMessage("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyName", "my.name", "123-abc"))
	}
	return out
}

// labelValueProblems checks a label value.
func labelValueProblems(s string) []string {
	var out []string
	if len(s) > 63 {
		out = append(out, "must be no more than 63 characters")
	}
	if s != "" && !qnameRE.MatchString(s) {
		out = append(out, validation.RegexMessage("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", "("+qnameFmt+")?", "MyValue", "my_value", "12345"))
	}
	return out
}
