package cache_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

func TestIndexerStoreOperations(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	a := newPod("ns1", "a", "1")
	b := newPod("ns1", "b", "2")
	c := newPod("", "c", "3")
	for _, p := range []*Pod{a, b, c} {
		require.NoError(t, x.Add(p))
	}
	assert.Equal(t, []string{"c", "ns1/a", "ns1/b"}, sorted(x.ListKeys()))
	assert.Equal(t, []string{"c", "ns1/a", "ns1/b"}, keysOf(x.List()))
	assert.Equal(t, 3, x.Len())

	got, ok := x.GetByKey("ns1/a")
	require.True(t, ok, `GetByKey("ns1/a") not found`)
	assert.Same(t, a, got, "the stored object is handed out, not a copy")

	a2 := newPod("ns1", "a", "4")
	require.NoError(t, x.Update(a2))
	got, exists, err := x.Get(newPod("ns1", "a", ""))
	require.NoError(t, err)
	require.True(t, exists)
	assert.Equal(t, "4", got.ResourceVersion, `Get("ns1/a") after Update`)

	// Delete uses only the key: a stale state deletes the stored one.
	require.NoError(t, x.Delete(newPod("ns1", "a", "1")))
	_, ok = x.GetByKey("ns1/a")
	assert.False(t, ok, `GetByKey("ns1/a") after Delete`)
	require.NoError(t, x.Delete(newPod("ns1", "a", "1")), "deleting a missing object is not an error")
	assert.Equal(t, 2, x.Len())
}

func TestIndexerRejectsObjectsWithoutKey(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	assert.ErrorIs(t, x.Add(newPod("ns", "", "1")), cache.ErrNoName)
	assert.ErrorIs(t, x.Update(nil), cache.ErrNilObject)
	assert.ErrorIs(t, x.Delete(newPod("ns", "", "1")), cache.ErrNoName)
	_, _, err := x.Get(nil)
	assert.ErrorIs(t, err, cache.ErrNilObject)
	assert.ErrorIs(t, x.Replace([]*Pod{newPod("ns", "a", "1"), newPod("ns", "", "1")}, "5"), cache.ErrNoName)
	assert.Zero(t, x.Len(), "a failed Add or Replace changes nothing")
	_, err = x.Index(cache.NamespaceIndex, nil)
	assert.ErrorIs(t, err, cache.ErrNilObject)
}

func TestIndexerReplace(t *testing.T) {
	x := nodeIndexer(t)
	old := podOn("n1", "ns1", "old", "1")
	require.NoError(t, x.Add(old))

	kept := podOn("n2", "ns2", "kept", "2")
	dup := podOn("n3", "ns2", "kept", "3") // same key, later: wins
	require.NoError(t, x.Replace([]*Pod{kept, newPod("ns2", "other", "2"), dup}, "10"))

	assert.Equal(t, []string{"ns2/kept", "ns2/other"}, sorted(x.ListKeys()))
	assert.Equal(t, "10", x.ResourceVersion())
	got, _ := x.GetByKey("ns2/kept")
	assert.Same(t, dup, got, "of two items with one key the last wins")

	ns, err := x.ListIndexFuncValues(cache.NamespaceIndex)
	require.NoError(t, err)
	assert.Equal(t, []string{"ns2"}, ns, "the namespace index follows the replaced contents")
	nodes, err := x.ListIndexFuncValues("node")
	require.NoError(t, err)
	assert.Equal(t, []string{"n3"}, nodes, "the node index forgets the replaced and the overwritten objects")
}

func TestIndexerIndexQueries(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	pods := []*Pod{
		newPod("ns1", "a", "1", "app", "web", "tier", "front"),
		newPod("ns1", "b", "1", "app", "db"),
		newPod("ns2", "c", "1", "app", "web"),
		newPod("", "d", "1"),
	}
	for _, p := range pods {
		require.NoError(t, x.Add(p))
	}
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"labels": byLabelValues}))

	got, err := x.ByIndex(cache.NamespaceIndex, "ns1")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns1/b"}, keysOf(got))

	got, err = x.ByIndex(cache.NamespaceIndex, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"d"}, keysOf(got), "cluster-scoped objects are indexed under the empty namespace")

	keys, err := x.IndexKeys("labels", "app=web")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns2/c"}, sorted(keys))

	// Index: every object sharing a value with the probe, each once.
	got, err = x.Index("labels", newPod("x", "probe", "", "app", "web", "tier", "front"))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns1/a", "ns2/c"}, keysOf(got))
	got, err = x.Index(cache.NamespaceIndex, newPod("ns2", "probe", ""))
	require.NoError(t, err)
	assert.Equal(t, []string{"ns2/c"}, keysOf(got))

	vals, err := x.ListIndexFuncValues("labels")
	require.NoError(t, err)
	assert.Equal(t, []string{"app=db", "app=web", "tier=front"}, sorted(vals))

	got, err = x.ByIndex("labels", "app=none")
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = x.ByIndex("nope", "x")
	assert.ErrorIs(t, err, cache.ErrUnknownIndex)
	assert.Contains(t, err.Error(), `"nope"`)
	_, err = x.IndexKeys("nope", "x")
	assert.ErrorIs(t, err, cache.ErrUnknownIndex)
	_, err = x.Index("nope", pods[0])
	assert.ErrorIs(t, err, cache.ErrUnknownIndex)
	_, err = x.ListIndexFuncValues("nope")
	assert.ErrorIs(t, err, cache.ErrUnknownIndex)

	names := make([]string, 0)
	for name := range x.GetIndexers() {
		names = append(names, name)
	}
	assert.Equal(t, []string{"labels", cache.NamespaceIndex}, sorted(names))
}

func TestIndexerUpdateMovesIndexEntries(t *testing.T) {
	x := nodeIndexer(t)
	p := podOn("n1", "ns", "p", "1")
	require.NoError(t, x.Add(p))
	p2 := podOn("n2", "ns", "p", "2")
	require.NoError(t, x.Update(p2))

	got, err := x.ByIndex("node", "n1")
	require.NoError(t, err)
	assert.Empty(t, got, `ByIndex("node", "n1") after the pod moved to n2`)
	got, err = x.ByIndex("node", "n2")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Same(t, p2, got[0], "the index hands out the newest object")

	vals, err := x.ListIndexFuncValues("node")
	require.NoError(t, err)
	assert.Equal(t, []string{"n2"}, vals, "an emptied value is dropped")

	p3 := newPod("ns", "p", "3") // unscheduled: no value at all
	require.NoError(t, x.Update(p3))
	vals, err = x.ListIndexFuncValues("node")
	require.NoError(t, err)
	assert.Empty(t, vals)
}

func TestAddIndexersIndexesExistingObjects(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	for _, n := range []string{"a", "b", "c"} {
		p := newPod("ns", n, "1")
		p.Spec.NodeName = "node-" + n
		require.NoError(t, x.Add(p))
	}
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"node": byNode}))
	got, err := x.ByIndex("node", "node-b")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/b"}, keysOf(got))
}

func TestAddIndexersErrors(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	err := x.AddIndexers(cache.Indexers[*Pod]{cache.NamespaceIndex: byNode})
	assert.ErrorIs(t, err, cache.ErrIndexExists)
	assert.Error(t, x.AddIndexers(cache.Indexers[*Pod]{"": byNode}), "empty name")
	assert.Error(t, x.AddIndexers(cache.Indexers[*Pod]{"n": nil}), "nil function")

	require.NoError(t, x.Add(newPod("ns", "bad", "1")))
	boom := errors.New("boom")
	failing := func(p *Pod) ([]string, error) {
		if p.Name == "bad" {
			return nil, boom
		}
		return nil, nil
	}
	err = x.AddIndexers(cache.Indexers[*Pod]{"ok": byNode, "failing": failing})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), `"ns/bad"`, "the error names the object")
	assert.Len(t, x.GetIndexers(), 1, "a failed AddIndexers adds no index, not even the good one")
}

func TestIndexFuncErrorLeavesStoreUnchanged(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	boom := errors.New("boom")
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"strict": func(p *Pod) ([]string, error) {
		if p.Labels["bad"] != "" {
			return nil, boom
		}
		return []string{p.Name}, nil
	}}))
	good := newPod("ns", "p", "1")
	require.NoError(t, x.Add(good))
	err := x.Update(newPod("ns", "p", "2", "bad", "yes"))
	require.ErrorIs(t, err, boom)
	got, _ := x.GetByKey("ns/p")
	assert.Same(t, good, got, "a failed Update keeps the stored object")
	err = x.Replace([]*Pod{newPod("ns", "q", "3", "bad", "yes")}, "3")
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []string{"ns/p"}, x.ListKeys(), "a failed Replace keeps the contents")
}

func TestIndexerBeginReplace(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	unchanged := newPod("ns", "same", "5")
	require.NoError(t, x.Add(unchanged))
	require.NoError(t, x.Add(newPod("ns", "gone", "6")))
	require.NoError(t, x.Add(newPod("", "node", "7")))

	r := x.BeginReplace()
	// The reflector reuses the object it has when the resourceVersion is
	// unchanged.
	cur, ok := r.Lookup("ns", "same")
	require.True(t, ok, `Lookup("ns", "same")`)
	assert.Same(t, unchanged, cur)
	cur, ok = r.Lookup("", "node")
	require.True(t, ok, `Lookup("", "node") of a cluster-scoped object`)
	assert.Equal(t, "7", cur.ResourceVersion)
	_, ok = r.Lookup("ns", "absent")
	assert.False(t, ok)

	require.NoError(t, r.Add(cur))
	require.NoError(t, r.Add(unchanged))
	require.NoError(t, r.Add(newPod("ns", "new", "8")))
	assert.ErrorIs(t, r.Add(newPod("ns", "", "8")), cache.ErrNoName)
	// Until Commit the store serves its old contents.
	assert.Equal(t, []string{"node", "ns/gone", "ns/same"}, sorted(x.ListKeys()))
	_, ok = r.Lookup("ns", "new")
	assert.False(t, ok, "Lookup sees the current contents, not the staged ones")

	// An index added while the replacement is staged covers the staged
	// objects too.
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"name": func(p *Pod) ([]string, error) {
		return []string{p.Name}, nil
	}}))

	require.NoError(t, r.Commit("9"))
	assert.Equal(t, []string{"node", "ns/new", "ns/same"}, sorted(x.ListKeys()))
	assert.Equal(t, "9", x.ResourceVersion())
	got, err := x.ByIndex("name", "new")
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/new"}, keysOf(got))

	assert.ErrorIs(t, r.Add(newPod("ns", "late", "1")), cache.ErrReplacementDone)
	assert.ErrorIs(t, r.Commit("10"), cache.ErrReplacementDone)
	_, ok = r.Lookup("ns", "same")
	assert.False(t, ok, "Lookup after Commit")
	r.Abort() // harmless after Commit
}

func TestIndexerBeginReplaceAbort(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	require.NoError(t, x.Add(newPod("ns", "a", "1")))
	r := x.BeginReplace()
	require.NoError(t, r.Add(newPod("ns", "b", "2")))
	r.Abort()
	assert.ErrorIs(t, r.Commit("3"), cache.ErrReplacementDone)
	assert.Equal(t, []string{"ns/a"}, x.ListKeys())
	assert.Empty(t, x.ResourceVersion())
}

func TestReplacementLookupAllocatesNothing(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	require.NoError(t, x.Add(newPod("some-namespace", "some-rather-long-pod-name-7c5ddbdf54-abcde", "1")))
	r := x.BeginReplace()
	defer r.Abort()
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := r.Lookup("some-namespace", "some-rather-long-pod-name-7c5ddbdf54-abcde"); !ok {
			panic("not found")
		}
	})
	assert.Zero(t, allocs, "Lookup allocations per call")
}

func TestReplacementLookupWithCustomKeyFunc(t *testing.T) {
	upper := func(p *Pod) (string, error) {
		if p.Name == "" {
			return "", cache.ErrNoName
		}
		return "K:" + p.Namespace + ":" + p.Name, nil
	}
	x := cache.NewIndexer[*Pod](upper)
	stored := newPod("ns", "a", "1")
	require.NoError(t, x.Add(stored))
	_, ok := x.GetByKey("K:ns:a")
	require.True(t, ok, "the custom key is used")

	r := x.BeginReplace()
	defer r.Abort()
	got, ok := r.Lookup("ns", "a")
	require.True(t, ok, `Lookup("ns", "a") with a custom key function`)
	assert.Same(t, stored, got)
	_, ok = r.Lookup("ns", "b")
	assert.False(t, ok)

	// A key function that ignores the namespace cannot be trusted to map
	// namespace/name: Lookup checks what it found.
	byName := cache.NewIndexer(func(p *Pod) (string, error) { return p.Name, nil })
	require.NoError(t, byName.Add(newPod("ns1", "a", "1")))
	r2 := byName.BeginReplace()
	defer r2.Abort()
	_, ok = r2.Lookup("ns2", "a")
	assert.False(t, ok, "Lookup must not return ns1/a for ns2/a")
}

// TestMutatingSharedObjectBreaksIndex shows what the "do not modify"
// contract protects: a label changed in place on a stored object is not
// seen by the index, and after the next update the object is indexed under
// a value it no longer has.
func TestMutatingSharedObjectBreaksIndex(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"labels": byLabelValues}))
	require.NoError(t, x.Add(newPod("ns", "p", "1", "app", "web")))

	shared, _ := x.GetByKey("ns/p")
	shared.Labels["app"] = "db" // breaks the contract

	got, err := x.ByIndex("labels", "app=db")
	require.NoError(t, err)
	assert.Empty(t, got, "the index does not know about the in-place change")
	got, err = x.ByIndex("labels", "app=web")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "db", got[0].Labels["app"], "the index returns an object that no longer matches")

	// The next update computes the old values from the mutated object, so
	// the stale entry is never removed.
	require.NoError(t, x.Update(newPod("ns", "p", "2", "app", "db")))
	got, err = x.ByIndex("labels", "app=web")
	require.NoError(t, err)
	assert.Len(t, got, 1, "the object stays indexed under a value it no longer has")

	// The right way: clone, change the clone, store the clone.
	y := cache.NewIndexer[*Pod](nil)
	require.NoError(t, y.AddIndexers(cache.Indexers[*Pod]{"labels": byLabelValues}))
	require.NoError(t, y.Add(newPod("ns", "p", "1", "app", "web")))
	orig, _ := y.GetByKey("ns/p")
	c, err := meta.Clone(orig)
	require.NoError(t, err)
	c.Labels["app"] = "db"
	require.NoError(t, y.Update(c))
	got, err = y.ByIndex("labels", "app=web")
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, "web", orig.Labels["app"], "readers holding the old object see it unchanged")
}
