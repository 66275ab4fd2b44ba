package differential

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kubecache/kubecache/kubeproto"
)

// Side is one of the two servers a Case talks to.
type Side struct {
	// Name is "real" or "fake".
	Name string
	// HTTP authenticates to the server; Base is its URL.
	HTTP *http.Client
	Base string

	// mu guards vars.
	mu   sync.Mutex
	vars map[string]string
}

// NewSide returns a side with no variables.
func NewSide(name string, c *http.Client, base string) *Side {
	return &Side{Name: name, HTTP: c, Base: strings.TrimSuffix(base, "/"), vars: map[string]string{}}
}

// Set records a variable that later requests use as {name}.
func (s *Side) Set(name, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vars[name] = value
}

// Var returns a variable set with Set.
func (s *Side) Var(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vars[name]
}

// expand replaces every {name} by the side's variable of that name.
func (s *Side) expand(text string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String(), nil
		}
		j := strings.IndexByte(text[i:], '}')
		name := ""
		if j > 0 {
			name = text[i+1 : i+j]
		}
		v, ok := s.vars[name]
		if j < 0 || !ok || !isVarName(name) {
			// Not a variable (JSON braces): copy the brace and go on.
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		b.WriteString(text[:i])
		b.WriteString(v)
		text = text[i+j+1:]
	}
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Request is one HTTP request, written once for both sides: {name} in Path,
// Header values and Body is replaced by the side's variable (always {ns},
// the case's namespace).
type Request struct {
	Method string
	// Path is the path and query, e.g. "/api/v1/namespaces/{ns}/configmaps?limit=1".
	Path   string
	Header map[string]string
	Body   string
	// Watch reads the answer as a stream of watch events until the server
	// ends it (use timeoutSeconds in Path) or WatchDeadline passes.
	Watch bool
}

// WatchDeadline bounds how long a watch response is read.
const WatchDeadline = 20 * time.Second

// Response is what a server answered.
type Response struct {
	Code   int
	Header http.Header
	Body   []byte
	// Events are the decoded watch events (Request.Watch).
	Events []Event
	// StreamErr is how a watch stream ended, if not cleanly.
	StreamErr error
	// Took is the time to the response headers.
	Took time.Duration
}

// Event is one watch event, its object kept raw.
type Event struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// JSON decodes the body; nil when it is not JSON.
func (r *Response) JSON() map[string]any {
	return decodeJSON(r.Body)
}

func decodeJSON(b []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil
	}
	return m
}

// ResourceVersion returns metadata.resourceVersion of a JSON body.
func (r *Response) ResourceVersion() string {
	return str(r.JSON(), "metadata", "resourceVersion")
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, p := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = o[p]
	}
	s, _ := v.(string)
	return s
}

// open sends req to the side and returns the response with its body still
// open (for a watch) or read.
func (s *Side) open(ctx context.Context, req Request) (*http.Response, time.Duration, error) {
	path, err := s.expand(req.Path)
	if err != nil {
		return nil, 0, err
	}
	body, err := s.expand(req.Body)
	if err != nil {
		return nil, 0, err
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	var rd io.Reader
	if req.Body != "" {
		rd = strings.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, method, s.Base+path, rd)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: build %s %s: %w", s.Name, method, path, err)
	}
	hr.Header.Set("User-Agent", "kubecache-e2e-differential")
	if req.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.Header {
		v, err := s.expand(v)
		if err != nil {
			return nil, 0, err
		}
		hr.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := s.HTTP.Do(hr)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s %s: %w", s.Name, method, path, err)
	}
	return resp, time.Since(start), nil
}

// Do sends req and reads the whole answer (a watch until the stream ends).
func (s *Side) Do(ctx context.Context, req Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, WatchDeadline+10*time.Second)
	defer cancel()
	resp, took, err := s.open(ctx, req)
	if err != nil {
		return nil, err
	}
	return readResponse(ctx, resp, took, req.Watch), nil
}

func readResponse(ctx context.Context, resp *http.Response, took time.Duration, watch bool) *Response {
	defer resp.Body.Close()
	out := &Response{Code: resp.StatusCode, Header: resp.Header, Took: took}
	// "application/vnd.kubernetes.protobuf", with ";stream=watch" for a watch.
	protobuf := strings.HasPrefix(mediaType(resp.Header.Get("Content-Type")), "application/vnd.kubernetes.protobuf")
	if !watch || resp.StatusCode != http.StatusOK {
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		out.Body = b
		out.StreamErr = err
		if protobuf && err == nil {
			// Protobuf answers are compared as the objects they hold.
			out.Body, out.StreamErr = kubeproto.Decode(b)
		}
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, WatchDeadline)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { resp.Body.Close() })
	defer stop()
	br := bufio.NewReaderSize(resp.Body, 1<<16)
	next := jsonEvents(br)
	if protobuf {
		next = protobufEvents(br)
	}
	for {
		var ev Event
		if err := next(&ev); err != nil {
			if !errors.Is(err, io.EOF) {
				if ctx.Err() != nil {
					err = fmt.Errorf("stream still open after %v: %w", WatchDeadline, ctx.Err())
				}
				out.StreamErr = err
			}
			return out
		}
		out.Events = append(out.Events, ev)
	}
}

// jsonEvents reads the events of a JSON watch stream.
func jsonEvents(r io.Reader) func(*Event) error {
	d := json.NewDecoder(r)
	return func(ev *Event) error { return d.Decode(ev) }
}

// protobufEvents reads the events of a protobuf watch stream
// (length-prefixed WatchEvent frames) as the JSON events they hold.
func protobufEvents(r io.Reader) func(*Event) error {
	return func(ev *Event) error {
		frame, err := kubeproto.ReadFrame(r, kubeproto.MaxFrameSize)
		if err != nil {
			return err
		}
		line, err := kubeproto.DecodeWatchEvent(frame)
		if err != nil {
			return err
		}
		return json.Unmarshal(line, ev)
	}
}

// Pending is a watch opened on one side whose events are read later.
type Pending struct {
	side *Side
	resp *http.Response
	took time.Duration
	ctx  context.Context
	stop context.CancelFunc
}

// Open sends a watch request and returns once the response headers came:
// the server has started the watch, so later changes show in it.
func (s *Side) Open(ctx context.Context, req Request) (*Pending, error) {
	ctx, cancel := context.WithTimeout(ctx, WatchDeadline+10*time.Second)
	resp, took, err := s.open(ctx, req)
	if err != nil {
		cancel()
		return nil, err
	}
	return &Pending{side: s, resp: resp, took: took, ctx: ctx, stop: cancel}, nil
}

// Finish reads the watch until the server ends it.
func (p *Pending) Finish() *Response {
	defer p.stop()
	return readResponse(p.ctx, p.resp, p.took, true)
}
