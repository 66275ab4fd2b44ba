package rest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realDir holds discovery documents captured from a real kube-apiserver
// (e2e/capture-real.sh), with kubectl's own `api-resources -o wide` table
// for the same server.
var realDir = filepath.Join("..", "e2e", "testdata", "real")

// realDiscoveryServer serves the captured documents: aggregated when the
// client asks for it (and aggregated is true), the legacy ones otherwise.
func realDiscoveryServer(t *testing.T, aggregated bool) string {
	t.Helper()
	dir := filepath.Join(realDir, "discovery")
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		name := strings.ReplaceAll(p, "/", "_") + ".json"
		if aggregated && (p == "api" || p == "apis") && strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") {
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			name = "aggregated_" + name
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		serveFile(w, filepath.Join(dir, name))
	}))
	return srv.URL
}

// apiResourceRow is one row of `kubectl api-resources -o wide`.
type apiResourceRow struct {
	name, apiVersion, kind string
	shortNames             []string
	namespaced             bool
}

func (r apiResourceRow) group() string {
	g, _, ok := strings.Cut(r.apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// readAPIResources parses the fixed-width table kubectl printed.
func readAPIResources(t *testing.T) []apiResourceRow {
	t.Helper()
	f, err := os.Open(filepath.Join(realDir, "api-resources-wide.txt"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	require.True(t, sc.Scan())
	header := sc.Text()
	col := func(name string) int {
		i := strings.Index(header, name)
		require.GreaterOrEqual(t, i, 0, "column %s", name)
		return i
	}
	cShort, cVersion, cNamespaced, cKind, cVerbs := col("SHORTNAMES"), col("APIVERSION"), col("NAMESPACED"), col("KIND"), col("VERBS")
	field := func(line string, from, to int) string {
		if from >= len(line) {
			return ""
		}
		return strings.TrimSpace(line[from:min(to, len(line))])
	}
	var rows []apiResourceRow
	for sc.Scan() {
		line := sc.Text()
		row := apiResourceRow{
			name:       field(line, 0, cShort),
			apiVersion: field(line, cVersion, cNamespaced),
			namespaced: field(line, cNamespaced, cKind) == "true",
			kind:       field(line, cKind, cVerbs),
		}
		if s := field(line, cShort, cVersion); s != "" {
			row.shortNames = strings.Split(s, ",")
		}
		rows = append(rows, row)
	}
	require.NoError(t, sc.Err())
	return rows
}

// TestDiscoveryRealServer reads the documents of a real kube-apiserver,
// aggregated and legacy, and checks the result against kubectl's own table
// of the same server: the same resources in the preferred versions, and
// every resource reachable by its plural, its plural qualified with its
// group, its short names and its kind.
func TestDiscoveryRealServer(t *testing.T) {
	if _, err := os.Stat(filepath.Join(realDir, "discovery", "aggregated_apis.json")); err != nil {
		t.Skipf("no captured discovery documents: %v", err)
	}
	rows := readAPIResources(t)
	require.Greater(t, len(rows), 50)

	// The priority of each group: core first, then /apis order.
	var groups struct {
		Groups []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	b, err := os.ReadFile(filepath.Join(realDir, "discovery", "apis.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &groups))
	priority := map[string]int{"": 0}
	for i, g := range groups.Groups {
		priority[g.Name] = i + 1
	}
	byPriority := slices.Clone(rows)
	slices.SortStableFunc(byPriority, func(a, b apiResourceRow) int { return priority[a.group()] - priority[b.group()] })
	// first returns the highest-priority row that match accepts.
	first := func(match func(apiResourceRow) bool) apiResourceRow {
		for _, r := range byPriority {
			if match(r) {
				return r
			}
		}
		t.Fatal("no row matches")
		return apiResourceRow{}
	}

	for _, aggregated := range []bool{true, false} {
		t.Run(map[bool]string{true: "aggregated", false: "legacy"}[aggregated], func(t *testing.T) {
			c := newTestClient(t, &Config{Host: realDiscoveryServer(t, aggregated)})
			d, err := c.Discover(t.Context())
			require.NoError(t, err)
			assert.Empty(t, d.Failed)

			// The same resources as kubectl lists, in preferred versions.
			var want, got []string
			for _, r := range rows {
				want = append(want, r.name+" "+r.apiVersion+" "+r.kind)
			}
			for _, r := range d.Resources {
				if r.Version == d.PreferredVersion(r.Group) {
					got = append(got, r.Resource+" "+r.APIVersion()+" "+r.Kind)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			assert.Equal(t, want, got)

			check := func(word string, want apiResourceRow) {
				t.Helper()
				r, err := d.Resolve(word)
				if !assert.NoError(t, err, "Resolve(%q)", word) {
					return
				}
				assert.Equal(t, want.name+" "+want.apiVersion+" "+want.kind,
					r.Resource+" "+r.APIVersion()+" "+r.Kind, "Resolve(%q)", word)
				assert.Equal(t, want.namespaced, r.Namespaced, "Resolve(%q).Namespaced", word)
			}
			for _, row := range rows {
				if row.group() != "" {
					check(row.name+"."+row.group(), row)
				}
				check(row.name, first(func(r apiResourceRow) bool { return r.name == row.name }))
				for _, s := range row.shortNames {
					check(s, first(func(r apiResourceRow) bool { return slices.Contains(r.shortNames, s) }))
				}
				check(row.kind, first(func(r apiResourceRow) bool { return r.kind == row.kind }))
			}

			// The facts of docs/api-semantics.md ("Discovery documents") on these documents.
			deploy, err := d.Resolve("deploy")
			require.NoError(t, err)
			assert.Equal(t, "deployments.apps", deploy.GroupResource())
			assert.Contains(t, deploy.Subresources, "scale")
			hpa, err := d.Resolve("hpa")
			require.NoError(t, err)
			assert.Equal(t, "autoscaling/v2", hpa.APIVersion(), "the preferred version")
			hpa1, err := d.Resolve("horizontalpodautoscalers.v1.autoscaling")
			require.NoError(t, err)
			assert.Equal(t, "autoscaling/v1", hpa1.APIVersion())
			ev, err := d.Resolve("events")
			require.NoError(t, err)
			assert.Equal(t, "v1", ev.APIVersion(), "the core group wins")
			_, err = d.Resolve("foo")
			assert.EqualError(t, err, `the server doesn't have a resource type "foo"`)
		})
	}
}
