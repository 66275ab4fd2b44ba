package cache_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

// testSeed returns the seed of a randomized test: CACHE_TEST_SEED if set,
// else the clock. The test logs it so that a failure can be replayed.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CACHE_TEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "CACHE_TEST_SEED")
		seed = v
	}
	t.Logf("seed %d (replay with CACHE_TEST_SEED=%d)", seed, seed)
	return seed
}

// randomPod returns a pod with one of a few names, namespaces, nodes and
// labels, so that operations collide often.
func randomPod(r *rand.Rand, rv int) *Pod {
	ns := []string{"", "a", "b", "c"}[r.IntN(4)]
	name := "p" + strconv.Itoa(r.IntN(12))
	var labels []string
	for _, k := range []string{"app", "tier", "env"} {
		if r.IntN(2) == 0 {
			labels = append(labels, k, []string{"x", "y", "z"}[r.IntN(3)])
		}
	}
	p := newPod(ns, name, strconv.Itoa(rv), labels...)
	if r.IntN(3) > 0 {
		p.Spec.NodeName = "node" + strconv.Itoa(r.IntN(3))
	}
	return p
}

// TestIndexProperty applies random sequences of Add, Update, Put, Delete,
// DeleteByKey, Replace, streamed replacements (committed or aborted) and AddIndexers,
// and after every step checks the contents against a model and every index
// against one recomputed from scratch.
func TestIndexProperty(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	x := nodeIndexer(t)
	model := map[string]*Pod{}
	indexers := cache.Indexers[*Pod]{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc[*Pod], "node": byNode}
	labelsAdded := false

	const steps = 3000
	counts := map[string]int{}
	for step := range steps {
		op := r.IntN(100)
		var kind, desc string
		switch {
		case op < 20:
			p := randomPod(r, step)
			kind, desc = "Add", "Add "+metaKey(p)
			require.NoError(t, x.Add(p))
			model[metaKey(p)] = p
		case op < 35:
			p := randomPod(r, step)
			kind, desc = "Update", "Update "+metaKey(p)
			require.NoError(t, x.Update(p))
			model[metaKey(p)] = p
		case op < 60:
			p := randomPod(r, step)
			key := metaKey(p)
			kind, desc = "Put", "Put "+key
			old, existed, err := x.Put(key, p)
			require.NoError(t, err)
			want, wantExisted := model[key]
			require.Equal(t, wantExisted, existed, "Put(%q) existed at step %d", key, step)
			require.Same(t, want, old, "Put(%q) old at step %d", key, step)
			model[key] = p
		case op < 72:
			p := randomPod(r, step)
			kind, desc = "Delete", "Delete "+metaKey(p)
			require.NoError(t, x.Delete(p))
			delete(model, metaKey(p))
		case op < 85:
			key := metaKey(randomPod(r, step))
			kind, desc = "DeleteByKey", "DeleteByKey "+key
			old, existed, err := x.DeleteByKey(key)
			require.NoError(t, err)
			want, wantExisted := model[key]
			require.Equal(t, wantExisted, existed, "DeleteByKey(%q) existed at step %d", key, step)
			require.Same(t, want, old, "DeleteByKey(%q) old at step %d", key, step)
			delete(model, key)
		case op < 92:
			items := make([]*Pod, r.IntN(15))
			for i := range items {
				items[i] = randomPod(r, step)
			}
			kind, desc = "Replace", fmt.Sprintf("Replace %d items", len(items))
			require.NoError(t, x.Replace(items, strconv.Itoa(step)))
			model = map[string]*Pod{}
			for _, p := range items {
				model[metaKey(p)] = p
			}
		case op < 99:
			rep := x.BeginReplace()
			n := r.IntN(15)
			next := map[string]*Pod{}
			for range n {
				p := randomPod(r, step)
				// Reuse the current object half the time, as a Reflector
				// does for an unchanged resourceVersion.
				if cur, ok := rep.Lookup(p.Namespace, p.Name); ok && r.IntN(2) == 0 {
					require.Same(t, model[metaKey(p)], cur, "Lookup(%q)", metaKey(p))
					p = cur
				}
				require.NoError(t, rep.Add(p))
				next[metaKey(p)] = p
			}
			if r.IntN(4) == 0 {
				kind, desc = "BeginReplace+Abort", fmt.Sprintf("BeginReplace %d items, Abort", n)
				rep.Abort()
			} else {
				kind, desc = "BeginReplace+Commit", fmt.Sprintf("BeginReplace %d items, Commit", n)
				require.NoError(t, rep.Commit(strconv.Itoa(step)))
				model = next
			}
		default:
			if labelsAdded {
				continue
			}
			kind, desc = "AddIndexers", "AddIndexers labels"
			require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"labels": byLabelValues}))
			indexers["labels"] = byLabelValues
			labelsAdded = true
		}
		counts[kind]++
		checkIndexer(t, x, model, indexers, fmt.Sprintf("seed %d step %d (%s)", seed, step, desc))
		if t.Failed() {
			return
		}
	}
	t.Logf("%d steps: %v", steps, counts)
}

func metaKey(p *Pod) string {
	k, _ := cache.MetaNamespaceKeyFunc(p)
	return k
}

// checkIndexer compares x with model, and each index of x with the index
// recomputed from model by the same functions.
func checkIndexer(t *testing.T, x *cache.Indexer[*Pod], model map[string]*Pod, indexers cache.Indexers[*Pod], where string) {
	t.Helper()
	wantKeys := make([]string, 0, len(model))
	for k := range model {
		wantKeys = append(wantKeys, k)
	}
	sort.Strings(wantKeys)
	require.Equal(t, wantKeys, sorted(x.ListKeys()), "ListKeys at %s", where)
	for k, want := range model {
		got, ok := x.GetByKey(k)
		require.True(t, ok, "GetByKey(%q) at %s", k, where)
		require.Same(t, want, got, "GetByKey(%q) at %s", k, where)
	}
	require.Len(t, x.GetIndexers(), len(indexers), "GetIndexers at %s", where)

	for name, fn := range indexers {
		want := map[string][]string{}
		for k, p := range model {
			vals, err := fn(p)
			require.NoError(t, err)
			for _, v := range vals {
				if !slices.Contains(want[v], k) {
					want[v] = append(want[v], k)
				}
			}
		}
		wantVals := make([]string, 0, len(want))
		for v := range want {
			wantVals = append(wantVals, v)
		}
		sort.Strings(wantVals)
		gotVals, err := x.ListIndexFuncValues(name)
		require.NoError(t, err)
		assert.Equal(t, wantVals, sorted(gotVals), "ListIndexFuncValues(%q) at %s", name, where)
		for _, v := range wantVals {
			keys, err := x.IndexKeys(name, v)
			require.NoError(t, err)
			assert.Equal(t, sorted(want[v]), sorted(keys), "IndexKeys(%q, %q) at %s", name, v, where)
			objs, err := x.ByIndex(name, v)
			require.NoError(t, err)
			assert.Equal(t, sorted(want[v]), keysOf(objs), "ByIndex(%q, %q) at %s", name, v, where)
			for _, o := range objs {
				assert.Same(t, model[metaKey(o)], o, "ByIndex(%q, %q) object %q at %s", name, v, metaKey(o), where)
			}
		}
	}
}
