package differential

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Servers is the pair a differential test compares: the real server (the
// reference) and the fake one.
type Servers struct {
	RealHTTP *http.Client
	RealBase string
	FakeHTTP *http.Client
	FakeBase string
	// known holds the differences already written down; a difference not
	// in it fails the test, an entry no difference needs fails the run.
	known *knownSet
	// Report, when set, receives every difference found (a file path).
	Report string

	// reportMu serializes writes to Report.
	reportMu sync.Mutex
	// compared counts the requests whose answers were compared.
	compared atomic.Int64
}

// Case is one row of a differential table: the same requests go to both
// servers, in a namespace of the same name on each, and every difference
// between the answers is collected.
type Case struct {
	T    testing.TB
	Ctx  context.Context
	Real *Side
	Fake *Side
	// NS is the case's namespace (the same name on both servers).
	NS string

	srv *Servers
	// mu guards diffs.
	mu    sync.Mutex
	diffs []Difference
}

// NewCase creates the case's namespace on both servers; when the test ends
// it deletes them and reports the differences: unknown ones fail the test,
// known ones are logged with where they are written down.
func (s *Servers) NewCase(t testing.TB, nsPrefix string) *Case {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	c := &Case{
		T:    t,
		Ctx:  ctx,
		Real: NewSide("real", s.RealHTTP, s.RealBase),
		Fake: NewSide("fake", s.FakeHTTP, s.FakeBase),
		NS:   newName(nsPrefix),
		srv:  s,
	}
	c.Real.Set("ns", c.NS)
	c.Fake.Set("ns", c.NS)
	c.Setup(Request{Method: "POST", Path: "/api/v1/namespaces",
		Body: fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{"kubecache-e2e":"true"}}}`, c.NS)})
	t.Cleanup(func() {
		c.report()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c.both(func(s *Side) {
			if _, err := s.Do(ctx, Request{Method: "DELETE", Path: "/api/v1/namespaces/{ns}"}); err != nil {
				t.Logf("delete namespace %s on %s: %v", c.NS, s.Name, err)
			}
		})
	})
	return c
}

// both runs fn on the real and the fake side at once and waits for both.
func (c *Case) both(fn func(s *Side)) {
	var wg sync.WaitGroup
	for _, s := range []*Side{c.Real, c.Fake} {
		wg.Go(func() { fn(s) })
	}
	wg.Wait()
}

// Each runs one request per side, built by fn, and returns both answers;
// a transport error fails the test.
func (c *Case) Each(fn func(s *Side) Request) (real, fake *Response) {
	c.T.Helper()
	var errs [2]error
	var res [2]*Response
	c.both(func(s *Side) {
		i := 0
		if s == c.Fake {
			i = 1
		}
		res[i], errs[i] = s.Do(c.Ctx, fn(s))
	})
	for _, err := range errs {
		if err != nil {
			c.T.Fatalf("%v", err)
		}
	}
	return res[0], res[1]
}

// Setup sends requests whose answers are not compared; each must succeed
// (2xx) on both servers.
func (c *Case) Setup(reqs ...Request) {
	c.T.Helper()
	for _, req := range reqs {
		r, f := c.Each(func(*Side) Request { return req })
		for _, x := range []struct {
			name string
			r    *Response
		}{{"real", r}, {"fake", f}} {
			if x.r.Code/100 != 2 {
				c.T.Fatalf("setup %s %s on %s: %d %s", req.Method, req.Path, x.name, x.r.Code, abbrev(x.r.Body))
			}
		}
	}
}

// Capture sends a setup request and stores get(answer) in the variable
// name on each side (URL-escaped when query is true).
func (c *Case) Capture(name string, req Request, get func(*Response) string) {
	c.T.Helper()
	r, f := c.Each(func(*Side) Request { return req })
	for _, x := range []struct {
		s *Side
		r *Response
	}{{c.Real, r}, {c.Fake, f}} {
		if x.r.Code/100 != 2 {
			c.T.Fatalf("capture %s: %s %s on %s: %d %s", name, req.Method, req.Path, x.s.Name, x.r.Code, abbrev(x.r.Body))
		}
		v := get(x.r)
		if v == "" {
			c.T.Fatalf("capture %s: %s %s on %s: nothing to capture in %s", name, req.Method, req.Path, x.s.Name, abbrev(x.r.Body))
		}
		x.s.Set(name, v)
	}
}

// RV captures metadata.resourceVersion of the answer to req as {name}.
func (c *Case) RV(name string, req Request) {
	c.T.Helper()
	c.Capture(name, req, (*Response).ResourceVersion)
}

// Continue captures metadata.continue of the answer to req as {name},
// escaped for a query string.
func (c *Case) Continue(name string, req Request) {
	c.T.Helper()
	c.Capture(name, req, func(r *Response) string { return url.QueryEscape(str(r.JSON(), "metadata", "continue")) })
}

// Compare sends req to both servers and records how the answers differ.
func (c *Case) Compare(step string, req Request, opts ...CompareOptions) (real, fake *Response) {
	c.T.Helper()
	r, f := c.Each(func(*Side) Request { return req })
	c.record(step, r, f, opts)
	return r, f
}

// CompareWatch opens the watch req on both servers, sends the requests in
// during (each must succeed) once both watches have started, then reads
// both watches to their end and records the differences.
func (c *Case) CompareWatch(step string, req Request, during []Request, opts ...CompareOptions) (real, fake *Response) {
	c.T.Helper()
	req.Watch = true
	var pend [2]*Pending
	var errs [2]error
	c.both(func(s *Side) {
		i := 0
		if s == c.Fake {
			i = 1
		}
		pend[i], errs[i] = s.Open(c.Ctx, req)
	})
	for _, err := range errs {
		if err != nil {
			for _, p := range pend {
				if p != nil {
					p.Finish()
				}
			}
			c.T.Fatalf("%v", err)
		}
	}
	var res [2]*Response
	defer func() {
		// A failed setup step still ends both watches.
		for i, p := range pend {
			if res[i] == nil {
				p.stop()
				p.Finish()
			}
		}
	}()
	c.Setup(during...)
	c.both(func(s *Side) {
		i := 0
		if s == c.Fake {
			i = 1
		}
		res[i] = pend[i].Finish()
	})
	c.record(step, res[0], res[1], opts)
	return res[0], res[1]
}

func (c *Case) record(step string, r, f *Response, opts []CompareOptions) {
	var o CompareOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	where := c.T.Name()
	if step != "" {
		where += ": " + step
	}
	c.srv.compared.Add(1)
	d := compareResponses(where, r, f, o)
	c.mu.Lock()
	c.diffs = append(c.diffs, d...)
	c.mu.Unlock()
}

// report sorts the differences into known and new ones.
func (c *Case) report() {
	c.mu.Lock()
	diffs := c.diffs
	c.mu.Unlock()
	var unknown []string
	for _, d := range diffs {
		if k, ok := c.srv.known.match(d); ok {
			c.T.Logf("known difference (%s): %s", k.Why, d)
			continue
		}
		unknown = append(unknown, d.String())
	}
	c.srv.writeReport(diffs)
	if len(unknown) > 0 {
		c.T.Errorf("%d difference(s) between the real and the fake server:\n  %s", len(unknown), strings.Join(unknown, "\n  "))
	}
}

func (s *Servers) writeReport(diffs []Difference) {
	if s.Report == "" || len(diffs) == 0 {
		return
	}
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	f, err := os.OpenFile(s.Report, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	for _, d := range diffs {
		fmt.Fprintln(f, d)
	}
}
