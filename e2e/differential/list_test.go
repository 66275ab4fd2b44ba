package differential

import (
	"fmt"
	"strings"
	"testing"
)

// Request builders shared by the rows.

const cms = "/api/v1/namespaces/{ns}/configmaps"

func get(path string) Request { return Request{Method: "GET", Path: path} }

func post(path, body string) Request { return Request{Method: "POST", Path: path, Body: body} }

func put(path, body string) Request { return Request{Method: "PUT", Path: path, Body: body} }

func del(path string) Request { return Request{Method: "DELETE", Path: path} }

func patch(path, contentType, body string) Request {
	return Request{Method: "PATCH", Path: path, Body: body, Header: map[string]string{"Content-Type": contentType}}
}

// cm is a ConfigMap manifest with the given labels ("k=v,k2=v2") and data.
func cm(name, labels string, data ...string) string {
	var l, d []string
	if labels != "" {
		for _, kv := range strings.Split(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			l = append(l, fmt.Sprintf("%q:%q", k, v))
		}
	}
	for i := 0; i+1 < len(data); i += 2 {
		d = append(d, fmt.Sprintf("%q:%q", data[i], data[i+1]))
	}
	meta := fmt.Sprintf(`"name":%q`, name)
	if len(l) > 0 {
		meta += `,"labels":{` + strings.Join(l, ",") + `}`
	}
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{` + meta + `}`
	if len(d) > 0 {
		body += `,"data":{` + strings.Join(d, ",") + `}`
	}
	return body + `}`
}

func createCM(name string, data ...string) Request { return post(cms, cm(name, "", data...)) }

// TestListResourceVersionTable runs every cell of the table "Which state a
// list reads" in docs/api-semantics.md: a, b exist at {rv}; c is created
// after it.
func TestListResourceVersionTable(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-list-rv")
	c.Setup(createCM("a", "k", "1"), createCM("b", "k", "2"))
	c.RV("rv", get(cms))
	c.Setup(createCM("c", "k", "3"))
	c.RV("rvc", get(cms))
	// Wait until the real server's watch cache has c, so that the
	// "Any" cells (RV=0) are deterministic.
	c.Setup(get(cms + "?resourceVersion={rvc}&resourceVersionMatch=NotOlderThan"))
	c.Continue("cont", get(cms+"?limit=1"))

	for _, cell := range []struct{ step, query string }{
		{"match unset, no limit, RV unset (most recent)", ""},
		{"match unset, no limit, RV=0 (any)", "?resourceVersion=0"},
		{"match unset, no limit, RV=N (not older than N)", "?resourceVersion={rv}"},
		{"match unset, limit, RV unset (most recent, paginated)", "?limit=1"},
		{"match unset, limit, RV=0 (any: limit ignored)", "?limit=1&resourceVersion=0"},
		{"match unset, limit, RV=N (exact)", "?limit=1&resourceVersion={rv}"},
		{"match unset, continue, RV unset (continuation)", "?limit=1&continue={cont}"},
		{"match unset, continue, RV=0 (continuation)", "?limit=1&continue={cont}&resourceVersion=0"},
		{"match unset, continue, RV=N (400)", "?limit=1&continue={cont}&resourceVersion={rv}"},
		{"Exact, RV unset (422)", "?resourceVersionMatch=Exact"},
		{"Exact, RV=0 (422)", "?resourceVersionMatch=Exact&resourceVersion=0"},
		{"Exact, RV=N (exact)", "?resourceVersionMatch=Exact&resourceVersion={rv}"},
		{"NotOlderThan, RV unset (422)", "?resourceVersionMatch=NotOlderThan"},
		{"NotOlderThan, RV=0 (any)", "?resourceVersionMatch=NotOlderThan&resourceVersion=0"},
		{"NotOlderThan, RV=N (not older than N)", "?resourceVersionMatch=NotOlderThan&resourceVersion={rv}"},
		{"Exact with limit, RV=N (exact, paginated)", "?resourceVersionMatch=Exact&resourceVersion={rv}&limit=1"},
		{"NotOlderThan with limit, RV=N", "?resourceVersionMatch=NotOlderThan&resourceVersion={rv}&limit=1"},
	} {
		c.Compare(cell.step, get(cms+cell.query))
	}
}

// TestListValidation covers the checks on list options (docs/api-semantics.md,
// "Checks on the options") and the answers to malformed parameters.
func TestListValidation(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-list-validation")
	c.Setup(createCM("a"), createCM("b"))
	c.RV("rv", get(cms))
	c.Continue("cont", get(cms+"?limit=1"))
	for _, row := range []struct{ step, query string }{
		{"resourceVersionMatch=Bogus (422)", "?resourceVersionMatch=Bogus&resourceVersion=1"},
		{"resourceVersionMatch with continue (422)", "?resourceVersionMatch=NotOlderThan&resourceVersion={rv}&continue={cont}"},
		{"sendInitialEvents on a list (422)", "?sendInitialEvents=true&resourceVersionMatch=NotOlderThan"},
		{"continue=garbage (400)", "?continue=garbage"},
		{"resourceVersion=abc (400)", "?resourceVersion=abc"},
		{"limit=-1", "?limit=-1"},
		{"limit=abc (400)", "?limit=abc"},
		{"bad label selector (400)", "?labelSelector=a%20in"},
		{"unknown field selector (400)", "?fieldSelector=spec.bogus%3Dx"},
		{"fieldSelector metadata.name", "?fieldSelector=metadata.name%3Da"},
		{"fieldSelector metadata.namespace!=", "?fieldSelector=metadata.namespace!%3Ddefault"},
		{"unknown parameters are ignored", "?fieldManager=x&fieldValidation=Strict&bogus=1"},
		{"timeoutSeconds on a list", "?timeoutSeconds=5"},
	} {
		c.Compare(row.step, get(cms+row.query))
	}
}

// TestListPagination checks how pages behave: every page reports the
// first page's RV, objects appear as of that RV, remainingItemCount, the
// last page's continue, selectors filtering pages down to zero items.
func TestListPagination(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-list-pages")
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		l := "tier=back"
		if n == "b" || n == "e" {
			l = "tier=front"
		}
		c.Setup(post(cms, cm(n, l, "v", n)))
	}
	c.Continue("p2", get(cms+"?limit=2"))
	// Changed after page 1: page 2 still shows c as it was.
	c.Setup(patch(cms+"/c", "application/merge-patch+json", `{"data":{"v":"changed"}}`), createCM("f"))
	c.Compare("page 2 at page 1's RV", get(cms+"?limit=2&continue={p2}"))
	c.Continue("p3", get(cms+"?limit=2&continue={p2}"))
	c.Compare("last page", get(cms+"?limit=2&continue={p3}"))
	c.Compare("selector page 1", get(cms+"?limit=2&labelSelector=tier%3Dfront"))
	c.Continue("s2", get(cms+"?limit=2&labelSelector=tier%3Dfront"))
	c.Compare("selector page 2", get(cms+"?limit=2&labelSelector=tier%3Dfront&continue={s2}"))
	c.Compare("limit larger than the list", get(cms+"?limit=100"))
	c.Compare("all namespaces with a selector", get("/api/v1/configmaps?labelSelector=tier%3Dfront&fieldSelector=metadata.namespace%3D{ns}"))
}

// TestListFutureResourceVersion: a resourceVersion newer than the server
// has seen waits ~3 s, then 504 Timeout with a ResourceVersionTooLarge
// cause and Retry-After.
func TestListFutureResourceVersion(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-list-future")
	c.Real.Set("future", "999999999")
	c.Fake.Set("future", "999999999")
	c.Compare("not older than a future RV (504)", get(cms+"?resourceVersion={future}"))
	c.Compare("exact future RV (504)", get(cms+"?resourceVersion={future}&resourceVersionMatch=Exact"))
}
