package workqueue_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/workqueue"
)

func TestPriorityOrder(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.AddInitial("old-1", true)
	q.AddInitial("old-2", true)
	q.Add("live-1")
	q.AddWithPriority("urgent", 10)
	q.AddInitial("live-2", false)
	q.AddWithPriority("old-1", 0)                      // raised: to the back of priority 0
	q.AddWithPriority("live-1", workqueue.LowPriority) // never moves down
	assert.Equal(t, 5, q.Len())
	var got []string
	for q.Len() > 0 {
		item, err := q.Get(context.Background())
		require.NoError(t, err)
		got = append(got, item)
		q.Done(item)
	}
	assert.Equal(t, []string{"urgent", "live-1", "live-2", "old-1", "old-2"}, got)
}

func TestInitialListFirst(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{InitialListFirst: true})
	q.AddInitial("old", true)
	q.AddInitial("live", false)
	item, err := q.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "old", item)
}

func TestPriorityOfAnItemReaddedWhileProcessing(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("a")
	item, err := q.Get(context.Background())
	require.NoError(t, err)
	q.AddWithPriority("a", workqueue.LowPriority)
	q.Add("b")
	q.AddWithPriority("a", 5) // the highest asked while processing wins
	q.Done(item)
	got, err := q.Get(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "a", got)
}

// priorityModel is the queue's contract in its plainest form: ready items
// with a priority and the order they became ready, processing items, and
// the priority an item processing will be queued with after Done.
type priorityModel struct {
	ready      map[int]readyAt // item -> priority, order
	processing map[int]bool
	again      map[int]int // processing items added again: their priority
	clock      int
}

type readyAt struct{ priority, order int }

func (m *priorityModel) add(item, priority int) {
	if m.processing[item] {
		if p, ok := m.again[item]; !ok || priority > p {
			m.again[item] = priority
		}
		return
	}
	if r, ok := m.ready[item]; ok && priority <= r.priority {
		return
	}
	m.clock++
	m.ready[item] = readyAt{priority, m.clock}
}

func (m *priorityModel) get() int {
	best, found := 0, false
	for item, r := range m.ready {
		if !found || r.priority > m.ready[best].priority || (r.priority == m.ready[best].priority && r.order < m.ready[best].order) {
			best, found = item, true
		}
	}
	delete(m.ready, best)
	m.processing[best] = true
	return best
}

func (m *priorityModel) done(item int) {
	delete(m.processing, item)
	if p, ok := m.again[item]; ok {
		delete(m.again, item)
		m.clock++
		m.ready[item] = readyAt{p, m.clock}
	}
}

// TestPriorityQueueAgainstModel drives the queue and the model with the
// same random adds, gets and dones, and compares every item handed out and
// every length.
func TestPriorityQueueAgainstModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		q := workqueue.New(workqueue.Options[int]{Clock: clock.NewFake(clock.Real{}.Now())})
		m := &priorityModel{ready: map[int]readyAt{}, processing: map[int]bool{}, again: map[int]int{}}
		var held []int
		priorities := []int{workqueue.LowPriority, -1, 0, 0, 0, 3}
		for step := range 2000 {
			switch op := rng.IntN(10); {
			case op < 5:
				item, p := rng.IntN(30), priorities[rng.IntN(len(priorities))]
				if p == 0 && rng.IntN(2) == 0 {
					q.Add(item)
				} else {
					q.AddWithPriority(item, p)
				}
				m.add(item, p)
			case op < 8 && len(m.ready) > 0:
				want := m.get()
				got, err := q.Get(context.Background())
				require.NoError(t, err)
				require.Equal(t, want, got, "seed %d step %d", seed, step)
				held = append(held, got)
			case len(held) > 0:
				i := rng.IntN(len(held))
				item := held[i]
				held = append(held[:i], held[i+1:]...)
				q.Done(item)
				m.done(item)
			}
			require.Equal(t, len(m.ready), q.Len(), "seed %d step %d", seed, step)
		}
	}
}

// ExampleQueue_AddInitial shows an informer's handler feeding a queue: the
// objects of the initial list wait behind the changes that happen while
// the controller starts.
func ExampleQueue_AddInitial() {
	q := workqueue.New(workqueue.Options[string]{})
	onAdd := func(key string, initial bool) { q.AddInitial(key, initial) }

	onAdd("default/a", true) // the initial list …
	onAdd("default/b", true)
	onAdd("default/new", false) // … and a create that happened meanwhile
	q.Add("default/b")          // an update to b: it moves up to live priority

	for q.Len() > 0 {
		key, _ := q.Get(context.Background())
		fmt.Println(key)
		q.Done(key)
	}
	// Output:
	// default/new
	// default/b
	// default/a
}
