package selector

import (
	"fmt"
	"strings"
)

// The syntax rules for label keys and values, as the API server applies them
// to both objects and selectors.
const (
	// MaxNameLength bounds a label value and the name part of a label key.
	MaxNameLength = 63
	// MaxPrefixLength bounds the DNS-subdomain prefix of a label key.
	MaxPrefixLength = 253
)

// ValidateLabelKey reports whether key is a valid label key: an optional
// prefix that is a DNS subdomain of at most 253 characters followed by '/',
// then a name of 1 to 63 characters that begins and ends with a letter or
// digit and has only letters, digits, '-', '_' and '.' in between.
// The error, if any, says which rule was broken.
func ValidateLabelKey(key string) error {
	if msg := checkLabelKey(key); msg != "" {
		return fmt.Errorf("label key %q: %s", key, msg)
	}
	return nil
}

// ValidateLabelValue reports whether value is a valid label value: empty, or
// at most 63 characters beginning and ending with a letter or digit with
// only letters, digits, '-', '_' and '.' in between.
func ValidateLabelValue(value string) error {
	if msg := checkLabelValue(value); msg != "" {
		return fmt.Errorf("label value %q: %s", value, msg)
	}
	return nil
}

// checkLabelKey returns what is wrong with key, or "".
func checkLabelKey(key string) string {
	name := key
	if i := strings.IndexByte(key, '/'); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if strings.IndexByte(name, '/') >= 0 {
			return "a key may contain at most one '/'"
		}
		switch {
		case prefix == "":
			return "the prefix before '/' must not be empty"
		case len(prefix) > MaxPrefixLength:
			return fmt.Sprintf("the prefix is %d characters long; at most %d are allowed", len(prefix), MaxPrefixLength)
		case !isDNSSubdomain(prefix):
			return "the prefix must be a DNS subdomain: lowercase letters, digits, '-' and '.', each dot-separated part beginning and ending with a letter or digit"
		}
	}
	switch {
	case name == "":
		return "the name part must not be empty"
	case len(name) > MaxNameLength:
		return fmt.Sprintf("the name part is %d characters long; at most %d are allowed", len(name), MaxNameLength)
	case !isQualifiedName(name):
		return "the name part must begin and end with a letter or digit and contain only letters, digits, '-', '_' and '.'"
	}
	return ""
}

// checkLabelValue returns what is wrong with value, or "".
func checkLabelValue(value string) string {
	switch {
	case len(value) > MaxNameLength:
		return fmt.Sprintf("the value is %d characters long; at most %d are allowed", len(value), MaxNameLength)
	case value != "" && !isQualifiedName(value):
		return "a value must be empty or begin and end with a letter or digit and contain only letters, digits, '-', '_' and '.'"
	}
	return ""
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isQualifiedName: non-empty, alphanumeric at both ends, [-_.A-Za-z0-9] inside.
func isQualifiedName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNSSubdomain: dot-separated non-empty parts of [-a-z0-9], each beginning
// and ending with a lowercase letter or digit (RFC 1123).
func isDNSSubdomain(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || !isLowerAlnum(part[0]) || !isLowerAlnum(part[len(part)-1]) {
			return false
		}
		for i := 1; i < len(part)-1; i++ {
			if c := part[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLowerAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}
