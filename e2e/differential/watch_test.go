package differential

import (
	"testing"
)

// watchFor is the timeoutSeconds of every compared watch: long enough for
// the changes made during it, short enough to keep the suite fast.
const watchFor = "3"

func watchReq(query string) Request {
	return Request{Path: cms + "?watch=true&timeoutSeconds=" + watchFor + query}
}

// TestWatchResourceVersions checks what a watch sends for
// each resourceVersion, with and without bookmarks and streaming lists.
func TestWatchResourceVersions(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-watch-rv")
	c.Setup(createCM("a", "k", "1"), createCM("b", "k", "2"))
	c.RV("rv", get(cms))
	change := []Request{createCM("c"), patch(cms+"/a", "application/merge-patch+json", `{"data":{"k":"9"}}`), del(cms + "/b")}
	undo := func() {
		c.Setup(createCM("b", "k", "2"), del(cms+"/c"))
	}
	for _, row := range []struct{ step, query string }{
		{"RV unset", ""},
		{"RV unset, bookmarks", "&allowWatchBookmarks=true"},
		{"RV=0, bookmarks", "&resourceVersion=0&allowWatchBookmarks=true"},
		{"RV=N", "&resourceVersion={rv}"},
		{"RV=N, bookmarks", "&resourceVersion={rv}&allowWatchBookmarks=true"},
		{"streaming list, RV unset", "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"},
		{"streaming list, RV=N", "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion={rv}"},
		{"streaming list without bookmarks", "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"},
	} {
		// A watch at RV=0 starts from the real server's watch cache, which
		// may not hold the previous row's undo yet; a list at the newest
		// resourceVersion with NotOlderThan returns once the cache does.
		c.RV("fresh", get(cms))
		c.Setup(get(cms + "?resourceVersion={fresh}&resourceVersionMatch=NotOlderThan"))
		c.CompareWatch(row.step, watchReq(row.query), change)
		c.RV("rv", get(cms))
		undo()
	}
	c.CompareWatch("watch=1", Request{Path: cms + "?watch=1&timeoutSeconds=" + watchFor}, change)
}

// TestWatchBookmarks: with allowWatchBookmarks, a watch whose resource
// moved past its start gets a plain BOOKMARK about 2 s before its
// timeoutSeconds.
func TestWatchBookmarks(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-watch-bookmarks")
	c.RV("rv", get(cms))
	c.CompareWatch("bookmark before the deadline",
		Request{Path: cms + "?watch=true&timeoutSeconds=6&allowWatchBookmarks=true&resourceVersion={rv}"},
		[]Request{createCM("a")}, CompareOptions{CountBookmarks: true})
}

// TestWatchValidation covers the non-200 answers a watch gets before its
// stream starts, and the checks on streaming-list options.
func TestWatchValidation(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-watch-invalid")
	for _, row := range []struct{ step, query string }{
		{"sendInitialEvents without resourceVersionMatch (422)", "&sendInitialEvents=true"},
		{"resourceVersionMatch without sendInitialEvents (422)", "&resourceVersionMatch=NotOlderThan"},
		{"sendInitialEvents with Exact (422)", "&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1"},
		{"bad label selector (400)", "&labelSelector=a%20in"},
		{"unknown field selector (400)", "&fieldSelector=spec.bogus%3Dx"},
		{"resourceVersion=abc (400)", "&resourceVersion=abc"},
		{"limit on a watch", "&limit=1"},
	} {
		c.CompareWatch(row.step, watchReq(row.query), nil)
	}
	c.CompareWatch("watch of an unknown resource (404)", Request{Path: "/api/v1/namespaces/{ns}/bogus?watch=true&timeoutSeconds=1"}, nil)
}

// TestWatchEvents checks what each change looks like in a watch.
func TestWatchEvents(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-watch-events")
	c.Setup(post(cms, cm("a", "app=web")), post(cms, cm("b", "app=db")))
	c.RV("rv", get(cms))
	c.CompareWatch("selector transitions", watchReq("&resourceVersion={rv}&labelSelector=app%3Dweb"), []Request{
		patch(cms+"/b", "application/merge-patch+json", `{"metadata":{"labels":{"app":"web"}}}`),
		patch(cms+"/a", "application/merge-patch+json", `{"metadata":{"labels":{"app":"other"}}}`),
		patch(cms+"/b", "application/merge-patch+json", `{"data":{"x":"1"}}`),
	})
	c.RV("rv", get(cms))
	c.CompareWatch("no-op update sends nothing", watchReq("&resourceVersion={rv}"), []Request{
		put(cms+"/b", cm("b", "app=web", "x", "1")),
	})
	c.RV("rv", get(cms))
	c.CompareWatch("finalizer deletion", watchReq("&resourceVersion={rv}"), []Request{
		patch(cms+"/a", "application/merge-patch+json", `{"metadata":{"finalizers":["e2e.kubecache.io/hold"]}}`),
		del(cms + "/a"),
		patch(cms+"/a", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`),
	})
	c.RV("rv", get(cms))
	c.CompareWatch("one object by field selector", watchReq("&resourceVersion={rv}&fieldSelector=metadata.name%3Db"), []Request{
		createCM("c"),
		patch(cms+"/b", "application/merge-patch+json", `{"data":{"y":"1"}}`),
		del(cms + "/b"),
	})
	c.RV("rv", get(cms))
	c.CompareWatch("legacy watch path", Request{Path: "/api/v1/watch/namespaces/{ns}/configmaps?timeoutSeconds=" + watchFor + "&resourceVersion={rv}"},
		[]Request{createCM("d")})
	c.RV("rv", get(cms))
	c.CompareWatch("delete collection", watchReq("&resourceVersion={rv}"), []Request{del(cms)})
	c.CompareWatch("table watch", Request{Path: cms + "?watch=true&timeoutSeconds=" + watchFor,
		Header: map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}},
		[]Request{createCM("t1"), createCM("t2")})
}
