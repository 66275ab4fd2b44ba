package workqueue

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
)

// model is an obviously-correct, slow statement of the queue's contract:
// plain slices and maps, no heap, no ring, no waiters.
type model struct {
	now        time.Duration
	ready      []int
	dirty      map[int]bool
	processing map[int]bool
	delayed    map[int]modelDelay
	seq        uint64
	failures   map[int]int
	shut       bool
}

type modelDelay struct {
	due time.Duration
	seq uint64
}

func newModel() *model {
	return &model{dirty: map[int]bool{}, processing: map[int]bool{}, delayed: map[int]modelDelay{}, failures: map[int]int{}}
}

func (m *model) add(k int) {
	if m.dirty[k] {
		return
	}
	m.dirty[k] = true
	if !m.processing[k] {
		m.ready = append(m.ready, k)
	}
}

func (m *model) addAfter(k int, d time.Duration) {
	if d <= 0 {
		m.add(k)
		return
	}
	due := m.now + d
	if old, ok := m.delayed[k]; ok {
		if due < old.due {
			m.delayed[k] = modelDelay{due, old.seq}
		}
		return
	}
	m.delayed[k] = modelDelay{due, m.seq}
	m.seq++
}

func (m *model) promote() {
	var due []int
	for k, d := range m.delayed {
		if d.due <= m.now {
			due = append(due, k)
		}
	}
	slices.SortFunc(due, func(a, b int) int {
		da, db := m.delayed[a], m.delayed[b]
		if da.due != db.due {
			return int(da.due - db.due)
		}
		return int(da.seq) - int(db.seq)
	})
	for _, k := range due {
		delete(m.delayed, k)
		m.add(k)
	}
}

// FuzzQueue drives a queue and the model with the same operations and checks
// that Get hands out exactly what the model says, in the same order, and that
// the gauges agree. Each input byte pair is one operation.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 4, 0, 0, 1, 6, 0, 4, 0})
	f.Add([]byte{2, 3, 2, 1, 3, 1, 4, 0, 4, 0, 3, 2, 4, 0})
	f.Add([]byte{0, 0, 4, 0, 7, 0, 6, 0, 3, 5, 4, 0, 7, 8, 0, 1, 4, 0})
	f.Add([]byte{0, 0, 0, 1, 4, 0, 7, 16, 0, 0, 6, 0, 4, 0, 4, 0, 6, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const keys = 5
		clk := clock.NewFake(epoch)
		limiter, err := NewItemExponentialBackoff[int](time.Second, 4*time.Second)
		require.NoError(t, err)
		q := New(Options[int]{Clock: clk, RateLimiter: limiter})
		m := newModel()
		ctx := testContext(t)

		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%8, int(ops[i+1])
			k := arg % keys
			switch op {
			case 0, 1:
				q.Add(k)
				if !m.shut {
					m.add(k)
				}
			case 2:
				d := time.Duration(arg%4) * time.Second
				q.AddAfter(k, d)
				if !m.shut {
					m.addAfter(k, d)
				}
			case 3:
				d := time.Duration(arg%3) * time.Second
				clk.Step(d)
				m.now += d
			case 4, 5:
				m.promote()
				if len(m.ready) == 0 {
					require.Zero(t, q.Len(), "op %d: the model has nothing ready", i/2)
					if m.shut {
						_, err := q.Get(ctx)
						require.ErrorIs(t, err, ErrShutDown, "op %d", i/2)
					}
					continue
				}
				got, err := q.Get(ctx)
				require.NoError(t, err, "op %d", i/2)
				want := m.ready[0]
				m.ready = m.ready[1:]
				require.Equal(t, want, got, "op %d: Get", i/2)
				require.False(t, m.processing[got], "op %d: %d handed out twice", i/2, got)
				delete(m.dirty, got)
				m.processing[got] = true
			case 6:
				q.Done(k)
				if m.processing[k] {
					delete(m.processing, k)
					if m.dirty[k] {
						m.ready = append(m.ready, k)
					}
				}
			case 7:
				switch {
				case arg%16 == 0:
					q.ShutDown()
					m.shut = true
					clear(m.delayed)
				case arg%2 == 0:
					q.AddRateLimited(k)
					if !m.shut {
						m.addAfter(k, backoff(time.Second, 4*time.Second, m.failures[k]))
						m.failures[k]++
					}
				default:
					q.Forget(k)
					delete(m.failures, k)
				}
			}
			m.promote()
			got := q.Metrics()
			require.Equal(t, len(m.ready), got.Depth, "op %d: Depth", i/2)
			require.Equal(t, len(m.delayed), got.Delayed, "op %d: Delayed", i/2)
			require.Equal(t, len(m.processing), got.Processing, "op %d: Processing", i/2)
			require.Equal(t, m.failures[k], q.NumRequeues(k), "op %d: NumRequeues(%d)", i/2, k)
		}
	})
}
