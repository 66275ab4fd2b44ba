package builtin

import (
	"regexp"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// The real server's format checks and their messages.

const (
	configKeyFmt = "[-._a-zA-Z0-9]+"
	percentFmt   = "[0-9]+%"
)

var (
	configKeyRE = regexp.MustCompile("^" + configKeyFmt + "$")
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

// qualifiedNameProblems checks a label key or other qualified name.
func qualifiedNameProblems(s string) []string { return validation.QualifiedNameProblems(s) }

// labelValueProblems checks a label value.
func labelValueProblems(s string) []string { return validation.LabelValueProblems(s) }

// searchDomainFmt is a subdomain whose labels may start with, and hold,
// underscores (DNS search domains).
const searchDomainFmt = `_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*`

var searchDomainRE = regexp.MustCompile("^" + searchDomainFmt + "$")

// searchDomainProblems checks a DNS search domain.
func searchDomainProblems(s string) []string {
	var out []string
	if len(s) > 253 {
		out = append(out, "must be no more than 253 characters")
	}
	if !searchDomainRE.MatchString(s) {
		out = append(out, validation.RegexMessage("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character", searchDomainFmt, "example.com"))
	}
	return out
}
