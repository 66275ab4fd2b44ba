package differential

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Exchange is one request kubectl made and the answer it got, read from
// its -v=9 log.
type Exchange struct {
	Method string
	// Path is the path and query, without scheme and host.
	Path        string
	RequestBody string
	// Status is the HTTP status code; 0 when kubectl logged none (the
	// request failed before an answer came).
	Status int
	// Warnings are the Warning headers of the answer, in order.
	Warnings []string
	Body     string
}

// String is "METHOD path → status".
func (x Exchange) String() string {
	return fmt.Sprintf("%s %s → %d", x.Method, x.Path, x.Status)
}

// A kubectl -v=9 log (client-go's round tripper and request logging, klog
// text format) holds, per request:
//
//	I1130 02:59:43.837470   16990 helper.go:246] "Request Body" body=<
//		{"apiVersion":"v1",...}
//	 >
//	I1130 02:59:43.837568   16990 round_trippers.go:473] curl -v -XPOST ... 'https://...'
//	I1130 02:59:43.841862   16990 round_trippers.go:560] POST https://host/api/v1/... 201 Created in 4 milliseconds
//	I1130 02:59:43.841910   16990 round_trippers.go:587]     Warning: 299 - "unknown field"
//	I1130 02:59:43.842116   16990 helper.go:246] "Response Body" body="{...}"
//
// A body is either one quoted string or, when it holds a newline, a block
// of tab-indented lines ended by " >".
var (
	logHeadLine = regexp.MustCompile(`^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]+\] `)
	logRequest  = regexp.MustCompile(`\] (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (https?://\S+)(?: (\d{3})\b.*?)?\s+in \d+ milliseconds$`)
	logWarning  = regexp.MustCompile(`\] \s+Warning: (.*)$`)
	logBody     = regexp.MustCompile(`\] "(Request|Response) Body" body=(.*)$`)
)

// ParseKubectlLog reads the requests and answers in a kubectl -v=9 log, in
// order. A request body is logged before its request line, a response body
// after its status. Lines it does not know are skipped; a body it cannot
// unquote is kept as logged.
func ParseKubectlLog(log string) []Exchange {
	var out []Exchange
	pendingBody := ""
	lines := strings.Split(log, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !logHeadLine.MatchString(line) {
			continue
		}
		if m := logRequest.FindStringSubmatch(line); m != nil {
			u, err := url.Parse(m[2])
			if err != nil {
				continue
			}
			p := u.EscapedPath()
			if u.RawQuery != "" {
				p += "?" + u.RawQuery
			}
			status, _ := strconv.Atoi(m[3])
			out = append(out, Exchange{Method: m[1], Path: p, RequestBody: pendingBody, Status: status})
			pendingBody = ""
			continue
		}
		if m := logWarning.FindStringSubmatch(line); m != nil && len(out) > 0 {
			last := &out[len(out)-1]
			last.Warnings = append(last.Warnings, m[1])
			continue
		}
		m := logBody.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var body string
		if m[2] == "<" {
			var b strings.Builder
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
				i++
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(lines[i][1:])
			}
			if i+1 < len(lines) && lines[i+1] == " >" {
				i++
			}
			body = b.String()
		} else if s, err := strconv.Unquote(m[2]); err == nil {
			body = s
		} else {
			body = m[2]
		}
		if m[1] == "Request" {
			pendingBody = body
		} else if len(out) > 0 {
			out[len(out)-1].Body = body
		}
	}
	return out
}

// volatileQuery drops the query parameters whose values differ between
// servers or runs (resourceVersion, continue, the OpenAPI hash, kubectl's
// client-side timeout), keeping their names.
func volatileQuery(path string) string {
	p, q, ok := strings.Cut(path, "?")
	if !ok {
		return path
	}
	vals, err := url.ParseQuery(q)
	if err != nil {
		return path
	}
	for _, k := range []string{"resourceVersion", "continue", "hash", "timeout", "timeoutSeconds"} {
		if _, ok := vals[k]; ok {
			vals.Set(k, "*")
		}
	}
	return p + "?" + vals.Encode()
}
