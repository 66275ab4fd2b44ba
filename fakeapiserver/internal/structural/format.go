package structural

import (
	"encoding/base64"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The string formats the real server's schema validator checks; any
// other format is accepted as it is.
var (
	uuidRE     = regexp.MustCompile(`^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	uuid3RE    = regexp.MustCompile(`^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	uuid4RE    = regexp.MustCompile(`^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	uuid5RE    = regexp.MustCompile(`^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	hostnameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	macRE      = regexp.MustCompile(`^(?i)([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$`)
	durationRE = regexp.MustCompile(`^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$`)
	dateTimeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`)
)

// FormatOK reports whether str is valid in the schema format f, as the
// real server's schema validator checks it; unknown formats accept
// anything.
func FormatOK(f, str string) bool {
	switch f {
	case "date-time", "datetime":
		if !dateTimeRE.MatchString(str) {
			return false
		}
		_, err := time.Parse(time.RFC3339Nano, strings.Replace(strings.ToUpper(str), " ", "T", 1))
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", str)
		return err == nil
	case "uuid":
		return uuidRE.MatchString(str)
	case "uuid3":
		return uuid3RE.MatchString(str)
	case "uuid4":
		return uuid4RE.MatchString(str)
	case "uuid5":
		return uuid5RE.MatchString(str)
	case "byte":
		_, err := base64.StdEncoding.DecodeString(str)
		return err == nil
	case "ipv4":
		ip := net.ParseIP(str)
		return ip != nil && ip.To4() != nil && !strings.Contains(str, ":")
	case "ipv6":
		return net.ParseIP(str) != nil && strings.Contains(str, ":")
	case "cidr":
		_, _, err := net.ParseCIDR(str)
		return err == nil
	case "mac":
		return macRE.MatchString(str)
	case "hostname":
		return len(str) <= 255 && hostnameRE.MatchString(strings.ToLower(str))
	case "email":
		_, err := mail.ParseAddress(str)
		return err == nil
	case "uri":
		u, err := url.ParseRequestURI(str)
		return err == nil && u.Scheme != ""
	case "duration":
		return durationRE.MatchString(str)
	}
	return true
}
