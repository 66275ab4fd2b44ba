package differential

import (
	"bufio"
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
	Status      int
	Body        string
}

var (
	logRequest  = regexp.MustCompile(`round_trippers\.go:\d+\] (GET|POST|PUT|PATCH|DELETE) (https?://\S+)`)
	logStatus   = regexp.MustCompile(`Response Status: (\d{3})`)
	logBody     = regexp.MustCompile(`"(Request|Response) Body" body=(".*")$`)
	logHeadLine = regexp.MustCompile(`^[IWE]\d{4} `)
)

// ParseKubectlLog reads the requests and answers in a kubectl -v=9 log, in
// order. A request body is logged before its request line, a response body
// after its status.
func ParseKubectlLog(log string) []Exchange {
	var out []Exchange
	pendingBody := ""
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
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
			out = append(out, Exchange{Method: m[1], Path: p, RequestBody: pendingBody})
			pendingBody = ""
			continue
		}
		if m := logStatus.FindStringSubmatch(line); m != nil && len(out) > 0 {
			out[len(out)-1].Status, _ = strconv.Atoi(m[1])
			continue
		}
		if m := logBody.FindStringSubmatch(line); m != nil {
			body, err := strconv.Unquote(m[2])
			if err != nil {
				body = m[2]
			}
			if m[1] == "Request" {
				pendingBody = body
			} else if len(out) > 0 {
				out[len(out)-1].Body = body
			}
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
	for _, k := range []string{"resourceVersion", "continue", "hash", "timeout"} {
		if _, ok := vals[k]; ok {
			vals.Set(k, "*")
		}
	}
	return p + "?" + vals.Encode()
}
