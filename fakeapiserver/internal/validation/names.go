package validation

import (
	"regexp"
	"strings"
)

// The real server's formats for names, and its wording when a name does
// not fit one.

const (
	labelFmt        = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	subdomainFmt    = labelFmt + "(\\." + labelFmt + ")*"
	dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?"
	qnameFmt        = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
)

var (
	labelRE        = regexp.MustCompile("^" + labelFmt + "$")
	subdomainRE    = regexp.MustCompile("^" + subdomainFmt + "$")
	dns1035LabelRE = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	qnameRE        = regexp.MustCompile("^" + qnameFmt + "$")
)

// RegexMessage words a value that does not match the regular expression
// format as the real server does: msg, then examples of valid values and
// the expression.
func RegexMessage(msg, format string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

// LabelProblems returns what is wrong with s as an RFC 1123 label (most
// namespaced names, container, volume and port names), or nil.
func LabelProblems(s string) []string {
	var out []string
	if len(s) > 63 {
		out = append(out, "must be no more than 63 characters")
	}
	if !labelRE.MatchString(s) {
		out = append(out, RegexMessage("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", labelFmt, "my-name", "123-abc"))
	}
	return out
}

// ContentLabelProblems returns what is wrong with s as an RFC 1123 label
// in the wording of the real server's declarative validation (its
// length in bytes; a subdomain told it must not contain dots), or nil.
func ContentLabelProblems(s string) []string {
	var out []string
	if len(s) > 63 {
		out = append(out, "must be no more than 63 bytes")
	}
	switch {
	case labelRE.MatchString(s):
	case subdomainRE.MatchString(s):
		out = append(out, "must not contain dots")
	default:
		out = append(out, RegexMessage("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", labelFmt, "my-name", "123-abc"))
	}
	return out
}

// DNS1035LabelProblems returns what is wrong with s as a DNS-1035 label
// (a Service's name), or nil.
func DNS1035LabelProblems(s string) []string {
	var out []string
	if len(s) > 63 {
		out = append(out, "must be no more than 63 characters")
	}
	if !dns1035LabelRE.MatchString(s) {
		out = append(out, RegexMessage("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", dns1035LabelFmt, "my-name", "abc-123"))
	}
	return out
}

// SubdomainProblems returns what is wrong with s as an RFC 1123 subdomain
// (the default name rule, hosts), or nil.
func SubdomainProblems(s string) []string {
	var out []string
	if len(s) > 253 {
		out = append(out, "must be no more than 253 characters")
	}
	if !subdomainRE.MatchString(s) {
		out = append(out, RegexMessage("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", subdomainFmt, "example.com"))
	}
	return out
}

// PathSegmentProblems returns what is wrong with s as a URL path segment
// (the names of RBAC objects and custom resources, the kinds and names
// an object reference holds), or nil.
func PathSegmentProblems(s string) []string {
	var out []string
	switch s {
	case ".", "..":
		out = append(out, "may not be '"+s+"'")
	}
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(s, bad) {
			out = append(out, "may not contain '"+bad+"'")
		}
	}
	return out
}

// QualifiedNameProblems returns what is wrong with s as a qualified name
// (a label or annotation key): an optional DNS subdomain prefix, a slash,
// and a name part; nil when it is one.
func QualifiedNameProblems(s string) []string {
	var out []string
	name := s
	if prefix, rest, ok := strings.Cut(s, "/"); ok {
		if prefix == "" {
			out = append(out, "prefix part must be non-empty")
		} else {
			for _, p := range SubdomainProblems(prefix) {
				out = append(out, "prefix part "+p)
			}
		}
		name = rest
		if strings.Contains(rest, "/") {
			return append(out, RegexMessage("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyName", "my.name", "123-abc")+" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
		}
	}
	switch {
	case name == "":
		out = append(out, "name part must be non-empty")
	case len(name) > 63:
		out = append(out, "name part must be no more than 63 characters")
	}
	if !qnameRE.MatchString(name) {
		out = append(out, RegexMessage("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qnameFmt, "MyName", "my.name", "123-abc"))
	}
	return out
}

// LabelValueProblems returns what is wrong with s as a label value, or
// nil.
func LabelValueProblems(s string) []string {
	var out []string
	if len(s) > 63 {
		out = append(out, "must be no more than 63 characters")
	}
	if s != "" && !qnameRE.MatchString(s) {
		out = append(out, RegexMessage("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", "("+qnameFmt+")?", "MyValue", "my_value", "12345"))
	}
	return out
}
