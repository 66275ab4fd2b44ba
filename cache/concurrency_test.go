package cache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

// TestIndexerConcurrentReadersOneWriter runs readers against an Indexer
// while one writer adds, updates, deletes and replaces; under -race it
// checks the locking, and each read checks what a reader may rely on.
func TestIndexerConcurrentReadersOneWriter(t *testing.T) {
	seed := testSeed(t)
	x := nodeIndexer(t)

	done := make(chan struct{})
	var wg sync.WaitGroup
	const readers = 6
	reads := make([]int, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			for {
				select {
				case <-done:
					return
				default:
				}
				reads[i]++
				switch r.IntN(6) {
				case 0:
					key := randomPod(r, 0)
					if got, ok := x.GetByKey(metaKey(key)); ok {
						assert.Equal(t, metaKey(key), metaKey(got), "GetByKey returned another object")
					}
				case 1:
					ns := []string{"", "a", "b", "c"}[r.IntN(4)]
					objs, err := x.ByIndex(cache.NamespaceIndex, ns)
					assert.NoError(t, err)
					for _, o := range objs {
						assert.Equal(t, ns, o.Namespace, "ByIndex(namespace, %q)", ns)
					}
				case 2:
					node := "node" + strconv.Itoa(r.IntN(3))
					objs, err := x.ByIndex("node", node)
					assert.NoError(t, err)
					for _, o := range objs {
						assert.Equal(t, node, o.Spec.NodeName, "ByIndex(node, %q)", node)
					}
				case 3:
					seen := map[string]bool{}
					for _, o := range x.List() {
						k := metaKey(o)
						assert.False(t, seen[k], "List returned %q twice", k)
						seen[k] = true
					}
				case 4:
					_, err := x.ListIndexFuncValues("node")
					assert.NoError(t, err)
				case 5:
					// The labels index appears half-way through.
					objs, err := x.ByIndex("labels", "app=x")
					if err != nil {
						assert.ErrorIs(t, err, cache.ErrUnknownIndex)
						continue
					}
					for _, o := range objs {
						assert.Equal(t, "x", o.Labels["app"], "ByIndex(labels, app=x)")
					}
				}
			}
		}()
	}

	r := rand.New(rand.NewPCG(seed, 99))
	const writes = 4000
	for step := range writes {
		if step == writes/2 {
			require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"labels": byLabelValues}))
		}
		switch op := r.IntN(100); {
		case op < 40:
			require.NoError(t, x.Add(randomPod(r, step)))
		case op < 70:
			require.NoError(t, x.Update(randomPod(r, step)))
		case op < 95:
			require.NoError(t, x.Delete(randomPod(r, step)))
		case op < 98:
			items := make([]*Pod, r.IntN(40))
			for i := range items {
				items[i] = randomPod(r, step)
			}
			require.NoError(t, x.Replace(items, strconv.Itoa(step)))
		default:
			rep := x.BeginReplace()
			for range r.IntN(40) {
				p := randomPod(r, step)
				if cur, ok := rep.Lookup(p.Namespace, p.Name); ok {
					p = cur
				}
				require.NoError(t, rep.Add(p))
			}
			require.NoError(t, rep.Commit(strconv.Itoa(step)))
		}
	}
	close(done)
	wg.Wait()
	t.Logf("%d writes while %d readers made %v reads", writes, readers, reads)
}

// TestQueuesConverge drives each queue the way an informer does: one
// goroutine writes (with some changes "missed", as a broken watch misses
// them, and relists to recover), another pops and applies the deltas to the
// indexer behind the queue, sometimes asking for a requeue. No key's
// resourceVersion may ever go backwards, and after the last relist the
// indexer must hold exactly the writer's state.
func TestQueuesConverge(t *testing.T) {
	for _, kind := range []string{"DeltaFIFO", "FIFO"} {
		t.Run(kind, func(t *testing.T) {
			seed := testSeed(t)
			known := cache.NewIndexer[*Pod](nil)
			var q lenQueue
			if kind == "DeltaFIFO" {
				q = cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
			} else {
				q = cache.NewFIFO(cache.QueueOptions[*Pod]{KnownObjects: known})
			}
			defer q.Close()
			runConvergence(t, q, known, seed)
		})
	}
}

func runConvergence(t *testing.T, q lenQueue, known *cache.Indexer[*Pod], seed uint64) {
	const sentinel = "zz/sentinel"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	consumed := make(chan error, 1)
	pops := 0
	go func() { consumed <- consumeUntilSentinel(ctx, q, known, seed, sentinel, &pops) }()
	model, counts := writeRandomly(t, q, seed, sentinel)
	require.NoError(t, <-consumed)
	assert.True(t, q.HasSynced())

	require.NoError(t, known.Delete(newPod("zz", "sentinel", "")))
	want := make([]string, 0, len(model))
	for k, p := range model {
		want = append(want, k+"@"+p.ResourceVersion)
	}
	got := make([]string, 0, len(model))
	for _, p := range known.List() {
		got = append(got, metaKey(p)+"@"+p.ResourceVersion)
	}
	assert.Equal(t, sorted(want), sorted(got), "the indexer converged to the writer's state")
	t.Logf("writer ops %v; %d pops", counts, pops)
}

// consumeUntilSentinel pops q as an informer does, applying every delta to
// known and requeueing one Pop in ten, until the sentinel key has been
// processed and the queue is empty. It fails if a key's resourceVersion
// ever goes back. pops counts the Pops.
func consumeUntilSentinel(ctx context.Context, q lenQueue, known *cache.Indexer[*Pod], seed uint64, sentinel string, pops *int) error {
	r := rand.New(rand.NewPCG(seed, 7))
	lastRV := map[string]int{}
	sawSentinel := false
	for {
		err := q.Pop(ctx, func(key string, deltas cache.Deltas[*Pod]) error {
			*pops++
			if r.IntN(10) == 0 {
				return cache.Requeue(nil)
			}
			for _, d := range deltas {
				rv, err := strconv.Atoi(d.Object.ResourceVersion)
				if err != nil {
					return err
				}
				if rv < lastRV[key] {
					return fmt.Errorf("%s went back from resourceVersion %d to %d (%s)", key, lastRV[key], rv, d.Type)
				}
				lastRV[key] = rv
				if d.Type == cache.Deleted {
					if err := known.Delete(d.Object); err != nil {
						return err
					}
					continue
				}
				if err := known.Update(d.Object); err != nil {
					return err
				}
			}
			if key == sentinel {
				sawSentinel = true
			}
			return nil
		})
		if err != nil {
			if _, requeued := err.(*cache.RequeueError); requeued {
				continue
			}
			return err
		}
		// The sentinel is the writer's last write, but a requeued key
		// goes after it: drain what is left.
		if sawSentinel && q.Len() == 0 {
			return nil
		}
	}
}

// writeRandomly writes 3,000 random changes to 40 keys into q as a
// reflector would (one in ten lost, as by a watch that missed it, with
// resyncs and relists among them), then a final relist and the sentinel.
// It returns the state the writer ended with and how many of each
// operation it made.
func writeRandomly(t *testing.T, q lenQueue, seed uint64, sentinel string) (map[string]*Pod, map[string]int) {
	r := rand.New(rand.NewPCG(seed, 11))
	model := map[string]*Pod{}
	rv := 0
	next := func(key string) *Pod {
		rv++
		ns, name, _ := cache.SplitMetaNamespaceKey(key)
		return newPod(ns, name, strconv.Itoa(rv))
	}
	list := func() []*Pod {
		out := make([]*Pod, 0, len(model))
		for _, p := range model {
			out = append(out, p)
		}
		return out
	}
	counts := map[string]int{}
	for range 3000 {
		key := "ns/p" + strconv.Itoa(r.IntN(40))
		missed := r.IntN(10) == 0 // the watch loses this change
		_, exists := model[key]
		switch op := r.IntN(100); {
		case op < 45:
			p := next(key)
			model[key] = p
			if !missed {
				if exists {
					require.NoError(t, q.Update(p))
				} else {
					require.NoError(t, q.Add(p))
				}
			}
			counts["upsert"]++
		case op < 80:
			if !exists {
				continue
			}
			p := next(key)
			delete(model, key)
			if !missed {
				require.NoError(t, q.Delete(p))
			}
			counts["delete"]++
		case op < 92:
			require.NoError(t, q.Resync())
			counts["resync"]++
		default:
			require.NoError(t, q.Replace(list(), strconv.Itoa(rv)))
			counts["relist"]++
		}
	}
	require.NoError(t, q.Replace(list(), strconv.Itoa(rv)))
	require.NoError(t, q.Add(next(sentinel)))
	return model, counts
}

type lenQueue = cache.Queue[*Pod]
