package informer

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

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
	inf.lifeMu.Lock()
	inf.state = stateRunning
	inf.mu.Lock()
	for _, l := range inf.listeners {
		inf.startListenerLocked(l)
	}
	inf.mu.Unlock()
	inf.lifeMu.Unlock()
	t.Cleanup(func() {
		inf.lifeMu.Lock()
		inf.state = stateStopped
		inf.lifeMu.Unlock()
		inf.stopping.Store(true)
		inf.log.wake()
		inf.listenerWG.Wait()
	})
}

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

// stateModel is a handler that applies notifications to a map and notes
// any inconsistency.
type stateModel struct {
	mu       sync.Mutex
	objs     map[string]string
	problems []string
	changed  chan struct{}
}

func newStateModel() *stateModel {
	return &stateModel{objs: map[string]string{}, changed: make(chan struct{})}
}

func (m *stateModel) note(f string, a ...any) { m.problems = append(m.problems, fmt.Sprintf(f, a...)) }

func (m *stateModel) poke() {
	close(m.changed)
	m.changed = make(chan struct{})
}

func (m *stateModel) OnAdd(o *obj, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meta.Key(o)
	if _, ok := m.objs[k]; ok {
		m.note("duplicate add %s@%s", k, o.ResourceVersion)
	}
	m.objs[k] = o.ResourceVersion
	m.poke()
}

func (m *stateModel) OnUpdate(old, o *obj) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meta.Key(o)
	if cur, ok := m.objs[k]; !ok || cur != old.ResourceVersion {
		m.note("update %s from %s, but held %q (a gap)", k, old.ResourceVersion, cur)
	}
	m.objs[k] = o.ResourceVersion
	m.poke()
}

func (m *stateModel) OnDelete(o *obj, _ bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := meta.Key(o)
	if _, ok := m.objs[k]; !ok {
		m.note("delete %s not held", k)
	}
	delete(m.objs, k)
	m.poke()
}

func (m *stateModel) waitHolds(t *testing.T, key string) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		_, ok := m.objs[key]
		changed := m.changed
		m.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", key)
		}
	}
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

	var models []*stateModel
	var removed, added int
	for range progress {
		m := newStateModel()
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
		m.waitHolds(t, "zz/final")
		m.mu.Lock()
		assert.Empty(t, m.problems, "handler %d", i)
		assert.Equal(t, want, maps.Clone(m.objs), "handler %d", i)
		m.mu.Unlock()
	}
	t.Logf("%d events, %d handlers kept, %d removed mid-storm", events, len(models), removed)
}
