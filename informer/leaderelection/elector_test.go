package leaderelection_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/rest"
)

const testTimeout = 20 * time.Second

// candidate is one copy of a controller campaigning for the lease.
type candidate struct {
	id      string
	e       *leaderelection.Elector
	cancel  context.CancelFunc
	result  chan error
	started chan struct{} // closed when its lead function starts
	stopped chan struct{} // closed when its lead function returns
}

// election is a fake API server, a fake clock shared by the candidates,
// and a count of how many lead at once.
type election struct {
	t      *testing.T
	srv    *fakeapiserver.Server
	c      *rest.Client
	clock  *clock.Fake
	acting atomic.Int32
	// overlap is set if two candidates ever act at once.
	overlap atomic.Bool
	mu      sync.Mutex
	errs    []error
}

func newElection(t *testing.T) *election {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return &election{t: t, srv: srv, c: c, clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
}

func (el *election) start(id string) *candidate {
	t := el.t
	e, err := leaderelection.New(leaderelection.Config{
		Client: el.c, Namespace: "default", Name: "mirror-controller", Identity: id,
		Clock: el.clock,
		OnError: func(err error) {
			el.mu.Lock()
			el.errs = append(el.errs, err)
			el.mu.Unlock()
		},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	c := &candidate{id: id, e: e, cancel: cancel, result: make(chan error, 1), started: make(chan struct{}), stopped: make(chan struct{})}
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		c.result <- e.Run(ctx, func(ctx context.Context) {
			if el.acting.Add(1) > 1 {
				el.overlap.Store(true)
			}
			close(c.started)
			<-ctx.Done()
			el.acting.Add(-1)
			close(c.stopped)
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-returned:
		case <-time.After(testTimeout):
			t.Errorf("%s: Run did not return", id)
		}
	})
	return c
}

// tick waits until every running candidate is parked on the clock, then
// moves the clock by d.
func (el *election) tick(parked int, d time.Duration) {
	el.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	err := el.clock.WaitForTimers(ctx, parked)
	if err != nil {
		el.mu.Lock()
		el.t.Logf("errors: %v", el.errs)
		el.mu.Unlock()
		el.t.Logf("pending: %v", el.clock.Pending())
	}
	require.NoError(el.t, err, "candidates parked on the clock")
	el.clock.Step(d)
}

func (el *election) lease() leaderelection.Lease {
	el.t.Helper()
	var l leaderelection.Lease
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(el.t, el.c.Get().Group("coordination.k8s.io").Namespace("default").Resource("leases").Name("mirror-controller").Do(ctx).Into(&l))
	return l
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestOneOfTwoCandidatesLeadsAndHandsOverOnRelease(t *testing.T) {
	el := newElection(t)
	a := el.start("a")
	waitClosed(t, a.started, "a to lead (GET 404, then POST)")
	b := el.start("b")

	l := el.lease()
	assert.Equal(t, "a", *l.Spec.HolderIdentity)
	assert.Equal(t, int32(15), *l.Spec.LeaseDurationSeconds)
	firstRV := l.ResourceVersion

	// A minute of renewals: a renews every 2s with a PUT, b keeps seeing
	// the lease change and never takes it.
	for range 30 {
		el.tick(2, 2*time.Second)
	}
	el.tick(2, 0)
	assert.False(t, isClosed(b.started), "b must not lead while a renews")
	assert.True(t, a.e.IsLeader())
	assert.False(t, b.e.IsLeader())
	assert.Equal(t, "a", b.e.Leader())
	l = el.lease()
	assert.NotEqual(t, firstRV, l.ResourceVersion, "renewals are writes")
	assert.True(t, l.Spec.RenewTime.After(l.Spec.AcquireTime.Time), "renewTime moves, acquireTime stays")

	// a stops: it releases the lease, and b takes it at its next try
	// without waiting for the lease to expire.
	a.cancel()
	require.NoError(t, <-a.result)
	waitClosed(t, a.stopped, "a to stop acting")
	assert.Equal(t, "", *el.lease().Spec.HolderIdentity, "released")
	el.tick(1, 2*time.Second)
	waitClosed(t, b.started, "b to lead after the release")
	l = el.lease()
	assert.Equal(t, "b", *l.Spec.HolderIdentity)
	assert.Equal(t, int32(1), *l.Spec.LeaseTransitions)
	assert.False(t, el.overlap.Load(), "two candidates acted at once")
}

func TestLeaderThatCannotRenewStepsDownBeforeOthersTakeOver(t *testing.T) {
	el := newElection(t)
	a := el.start("a")
	waitClosed(t, a.started, "a to lead")
	b := el.start("b")
	el.tick(2, 2*time.Second) // a renews at 0:02
	el.tick(2, 0)             // wait until it has

	// Every renewal fails from now on. b only reads while the lease is
	// held, so only a's PUTs hit the fault.
	el.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "update", Resource: "leases"}, Count: 1 << 20, Code: 500})
	// 10s (RenewDeadline) after its last renewal, at 0:12, a steps down.
	for range 5 {
		el.tick(2, 2*time.Second)
	}
	err := <-a.result
	assert.ErrorIs(t, err, leaderelection.ErrLeaseLost)
	assert.True(t, isClosed(a.stopped), "a stopped acting before Run returned")
	assert.False(t, a.e.IsLeader())
	assert.False(t, isClosed(b.started), "b waits for the lease to expire")

	// b takes over once the lease has gone unrenewed for 15s by its own
	// clock and its PUT goes through.
	el.srv.ClearFaults()
	for i := 0; i < 5 && !isClosed(b.started); i++ {
		el.tick(1, 2*time.Second)
		if !isClosed(b.started) {
			el.tick(1, 0)
		}
	}
	waitClosed(t, b.started, "b to lead")
	assert.Equal(t, "b", *el.lease().Spec.HolderIdentity)
	assert.False(t, el.overlap.Load(), "two candidates acted at once")
}

func TestConfigIsChecked(t *testing.T) {
	c, err := rest.NewClient(&rest.Config{Host: "http://127.0.0.1:1"})
	require.NoError(t, err)
	ok := leaderelection.Config{Client: c, Namespace: "ns", Name: "n", Identity: "me"}
	for name, mutate := range map[string]func(*leaderelection.Config){
		"no client":         func(c *leaderelection.Config) { c.Client = nil },
		"no name":           func(c *leaderelection.Config) { c.Name = "" },
		"no identity":       func(c *leaderelection.Config) { c.Identity = "" },
		"renew >= duration": func(c *leaderelection.Config) { c.RenewDeadline = 20 * time.Second },
		"retry >= renew":    func(c *leaderelection.Config) { c.RetryPeriod = 10 * time.Second },
		"sub-second lease":  func(c *leaderelection.Config) { c.LeaseDuration = 500 * time.Millisecond },
		"negative retry":    func(c *leaderelection.Config) { c.RetryPeriod = -1 },
	} {
		cfg := ok
		mutate(&cfg)
		_, err := leaderelection.New(cfg)
		assert.ErrorIs(t, err, leaderelection.ErrInvalidConfig, name)
	}
	e, err := leaderelection.New(ok)
	require.NoError(t, err)
	assert.False(t, e.IsLeader())
	assert.True(t, errors.Is(leaderelection.ErrLeaseLost, leaderelection.ErrLeaseLost))
}
