package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Case is one scripted scenario.
type Case struct {
	Name  string `json:"name"`
	Notes string `json:"notes,omitempty"`
	Steps []Step `json:"steps"`
}

// Step is one request and, once recorded, its answer.
type Step struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Type   string          `json:"type,omitempty"`
	Query  string          `json:"query,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	// Retry repeats the request until it succeeds (up to 20 s): for a
	// resource that a CustomResourceDefinition has just created.
	Retry    bool            `json:"retry,omitempty"`
	Status   int             `json:"status,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

var contentTypes = map[string]string{
	"":          "application/json",
	"json":      "application/json",
	"strategic": "application/strategic-merge-patch+json",
	"merge":     "application/merge-patch+json",
	"jsonpatch": "application/json-patch+json",
	"apply":     "application/apply-patch+yaml",
}

func main() {
	in := flag.String("in", "", "the YAML case file")
	out := flag.String("out", "", "the JSON golden file to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "recorder:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	if in == "" || out == "" {
		return errors.New("-in and -out are required")
	}
	src, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var cases []Case
	if err := yaml.Unmarshal(src, &cases); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	for i := range cases {
		ns := fmt.Sprintf("rec-%d-%d", time.Now().Unix()%100000, i)
		if _, _, err := c.do("POST", "/api/v1/namespaces", "", "", []byte(`{"metadata":{"name":"`+ns+`"}}`)); err != nil {
			return err
		}
		for j := range cases[i].Steps {
			st := &cases[i].Steps[j]
			ct, ok := contentTypes[st.Type]
			if !ok {
				return fmt.Errorf("case %s step %d: unknown type %q", cases[i].Name, j, st.Type)
			}
			path := strings.ReplaceAll(st.Path, "{ns}", ns)
			send := []byte(st.Body)
			var text string
			if json.Unmarshal(st.Body, &text) == nil {
				// A string body is sent as it is (YAML, or broken JSON).
				send = []byte(text)
			}
			status, body, err := c.do(st.Method, path, st.Query, ct, send)
			for deadline := time.Now().Add(20 * time.Second); err == nil && st.Retry && status >= 300 && time.Now().Before(deadline); {
				time.Sleep(200 * time.Millisecond)
				status, body, err = c.do(st.Method, path, st.Query, ct, send)
			}
			if err != nil {
				return fmt.Errorf("case %s step %d: %w", cases[i].Name, j, err)
			}
			st.Status = status
			st.Response = compact(body)
		}
		_, _, _ = c.do("DELETE", "/api/v1/namespaces/"+ns, "", "", nil)
		fmt.Fprintf(os.Stderr, "recorded %s\n", cases[i].Name)
	}
	b, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		s, _ := json.Marshal(string(b))
		return s
	}
	return buf.Bytes()
}

type client struct {
	base, token string
	http        *http.Client
}

func newClient() (*client, error) {
	base, token, caFile := os.Getenv("REALSERVER_URL"), os.Getenv("REALSERVER_TOKEN"), os.Getenv("REALSERVER_CA")
	if base == "" || token == "" || caFile == "" {
		return nil, errors.New("REALSERVER_URL, REALSERVER_TOKEN and REALSERVER_CA must be set (source the env file of e2e/realserver.sh)")
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s holds no certificate", caFile)
	}
	return &client{base: base, token: token, http: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}}, nil
}

func (c *client) do(method, path, query, contentType string, body []byte) (int, []byte, error) {
	u := c.base + path
	if query != "" {
		u += "?" + query
	}
	var r io.Reader
	if len(body) > 0 {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "recorder/v0")
	if contentType != "" && len(body) > 0 {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, b, err
}
