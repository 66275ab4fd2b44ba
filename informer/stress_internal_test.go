package informer

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// startHandlersOnly starts inf's handler goroutines without its reflector,
// so a test can drive process directly, and stops them at the end.
func startHandlersOnly(t testing.TB, inf *Informer[*obj]) {
	require.NoError(t, inf.startListeners())
	t.Cleanup(inf.stopListeners)
}

// newIdleInformer returns an informer whose source lists nothing and
// never watches.
func newIdleInformer(t testing.TB) *Informer[*obj] {
	never := &reflector.ListWatch[*obj]{
		ListFunc: func(context.Context, reflector.ListOptions, reflector.Known[*obj], func(*obj) error) (meta.ListMeta, error) {
			return meta.ListMeta{}, nil
		},
		WatchFunc: func(context.Context, reflector.ListOptions, reflector.Known[*obj]) (watch.Interface[*obj], error) {
			return nil, nil
		},
	}
	inf, err := New[*obj](never, Options[*obj]{})
	require.NoError(t, err)
	return inf
}

// TestRegistrationDuringStormIsExact drives the informer's process
// function with a long random stream of adds, updates and deletes while
// handlers are added and removed concurrently. Every handler still
// present must end with exactly the informer's final state, having seen
// no duplicate and no gap on the way.
func TestRegistrationDuringStormIsExact(t *testing.T) {
	const events, keys, handlers = 10000, 200, 40
	inf := newIdleInformer(t)
	startHandlersOnly(t, inf)

	progress := make(chan int, handlers)
	truth := map[string]*obj{}
	var driver sync.WaitGroup
	driver.Go(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range events {
			name := "o-" + strconv.Itoa(rng.IntN(keys))
			key := "ns/" + name
			o := &obj{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: strconv.Itoa(i + 1)}}
			d := cache.Delta[*obj]{Type: cache.Added, Object: o}
			if _, ok := truth[key]; ok {
				d.Type = cache.Updated
				if rng.IntN(5) == 0 {
					d = cache.Delta[*obj]{Type: cache.Deleted, Object: truth[key]}
				}
			}
			if d.Type == cache.Deleted {
				delete(truth, key)
			} else {
				truth[key] = o
			}
			if err := inf.process(key, cache.Deltas[*obj]{d}); err != nil {
				t.Errorf("process: %v", err)
				return
			}
			if i%(events/handlers) == 0 {
				progress <- i
			}
		}
		close(progress)
	})

	var models []*Model[*obj]
	var removed, added int
	for range progress {
		m := NewModel[*obj]()
		reg, err := inf.AddEventHandler(m, HandlerOptions{})
		require.NoError(t, err)
		if added++; added%4 == 0 {
			// Some handlers are removed again, mid-storm.
			reg.Remove()
			removed++
			continue
		}
		models = append(models, m)
	}
	driver.Wait()

	final := &obj{ObjectMeta: meta.ObjectMeta{Namespace: "zz", Name: "final", ResourceVersion: strconv.Itoa(events + 1)}}
	require.NoError(t, inf.process("zz/final", cache.Deltas[*obj]{{Type: cache.Added, Object: final}}))
	want := map[string]string{"zz/final": final.ResourceVersion}
	for k, o := range truth {
		want[k] = o.ResourceVersion
	}
	for i, m := range models {
		m.WaitFor(t, "zz/final", func(objs map[string]string, _ int) bool { _, ok := objs["zz/final"]; return ok })
		objs, problems := m.State()
		assert.Empty(t, problems, "handler %d", i)
		assert.Equal(t, want, objs, "handler %d", i)
	}
	t.Logf("%d events, %d handlers kept, %d removed mid-storm", events, len(models), removed)
}
