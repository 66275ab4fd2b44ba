package crd

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

func TestMain(m *testing.M) { os.Exit(target.Main(m)) }

type client struct {
	t    *testing.T
	http *http.Client
	base string
}

type response struct {
	code   int
	header http.Header
	body   []byte
}

func newClient(t *testing.T) *client {
	t.Helper()
	h, base := target.Get(t).HTTP(t)
	return &client{t: t, http: h, base: base}
}

// do sends a request; a body is JSON unless contentType says otherwise.
func (c *client) do(method, path, body, contentType string) response {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, rd)
	require.NoError(c.t, err)
	if body != "" {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "%s", r.body)
	return m
}

// causes returns a 422's causes as "reason field: message", sorted.
func (r response) causes(t *testing.T) []string {
	t.Helper()
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	var st struct {
		Details struct {
			Causes []struct{ Reason, Field, Message string }
		}
	}
	require.NoError(t, json.Unmarshal(r.body, &st))
	var out []string
	for _, c := range st.Details.Causes {
		out = append(out, c.Reason+" "+c.Field+": "+c.Message)
	}
	sort.Strings(out)
	return out
}

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// eventually polls cond every 50ms until it holds or 30s pass: a real
// server serves, publishes and forgets a CRD a moment after the write.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("cancelled waiting for %s", what)
		case <-tick.C:
		}
	}
}

// installCRD creates the CRD (YAML), deleting a leftover one first, waits
// until its resource at probe is served, and deletes it when the test
// ends.
func installCRD(t *testing.T, c *client, manifest, probe string) {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(manifest))
	require.NoError(t, err)
	var m struct {
		Metadata struct{ Name string }
	}
	require.NoError(t, json.Unmarshal(j, &m))
	name := m.Metadata.Name
	if c.do(http.MethodDelete, crdPath+"/"+name, "", "").code == http.StatusOK {
		eventually(t, "the old CRD to go", func() bool { return c.do(http.MethodGet, crdPath+"/"+name, "", "").code == http.StatusNotFound })
	}
	r := c.do(http.MethodPost, crdPath, string(j), "")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	eventually(t, name+" served", func() bool { return c.do(http.MethodGet, probe, "", "").code == http.StatusOK })
	t.Cleanup(func() {
		req, err := http.NewRequest(http.MethodDelete, c.base+crdPath+"/"+name, nil)
		if err == nil {
			if resp, err := c.http.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}
	})
}

func toJSON(t *testing.T, y string) string {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	require.NoError(t, err)
	return string(j)
}
