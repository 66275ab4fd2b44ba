package builtin

import (
	"regexp"
	"strings"
)

// The real server's format checks and their messages.

const (
	labelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	subdomainFmt = labelFmt + "(\\." + labelFmt + ")*"
	configKeyFmt = "[-._a-zA-Z0-9]+"
	qnameCharFmt = "[A-Za-z0-9]"
	qnameExtFmt  = "[-A-Za-z0-9_.]"
	qnameFmt     = "(" + qnameCharFmt + qnameExtFmt + "*)?" + qnameCharFmt
	percentFmt   = "[0-9]+%"
)

var (
	labelRE     = regexp.MustCompile("^" + labelFmt + "$")
	subdomainRE = regexp.MustCompile("^" + subdomainFmt + "$")
	configKeyRE = regexp.MustCompile("^" + configKeyFmt + "$")
	qnameRE     = regexp.MustCompile("^" + qnameFmt + "$")
	percentRE   = regexp.MustCompile("^" + percentFmt + "$")
	svcNameRE   = regexp.MustCompile("^[a-z0-9]([a-z0-9-]*[a-z0-9])*$")
	hasLetterRE = regexp.MustCompile("[a-z]")
)

// regexMsg words a failed regular expression as the real server does.
func regexMsg(msg, format string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

// dnsLabelProblems checks an RFC 1123 label (container, volume, port
// names).
func dnsLabelProblems(s string) []string {
	var out []string
	if len(s) > 63 {
		out = append(out, "must be no more than 63 characters")
	}
	if !labelRE.MatchString(s) {
		out = append(out, regexMsg("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", labelFmt, "my-name", "123-abc"))
	}
	return out
}

// dnsSubdomainProblems checks an RFC 1123 subdomain (hosts, names).
func dnsSubdomainProblems(s string) []string {
	var out []string
	if len(s) > 253 {
		out = append(out, "must be no more than 253 characters")
	}
	if !subdomainRE.MatchString(s) {
		out = append(out, regexMsg("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", subdomainFmt, "example.com"))
	}
	return out
}

// configKeyProblems checks a ConfigMap or Secret key.
func configKeyProblems(s string) []string {
	var out []string
	if len(s) > 253 {
		out = append(out, "must be no more than 253 characters")
	}
	if !configKeyRE.MatchString(s) {
		out = append(out, regexMsg("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", configKeyFmt, "key.name", "KEY_NAME", "key-name"))
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
			for _, p := range dnsSubdomainProblems(prefix) {
				out = append(out, "prefix part "+p)
			}
		}
		name = rest
		if strings.Contains(rest, "/") {
			return append(out, regexMsg("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyName", "my.name", "123-abc")+" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
		}
	}
	switch {
	case name == "":
		out = append(out, "name part must be non-empty")
	case len(name) > 63:
		out = append(out, "name part must be no more than 63 characters")
	}
	if name != "" && !qnameRE.MatchString(name) {
		out = append(out, regexMsg("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyName", "my.name", "123-abc"))
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
		out = append(out, regexMsg("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyValue", "my_value", "12345"))
	}
	return out
}
