package reliability_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kubecache/kubecache/internal/hostile"
)

// floodWave is what one wave of the attackers holds open against the
// server at once, for floodHold: idle keep-alive connections, requests
// whose headers or body never finish, HTTP/2 prefaces.
var floodWave = hostile.FloodOptions{Idle: 100, StalledHeaders: 40, StalledBodies: 40, Prefaces: 40}

// floodHold is how long a wave is held before the next replaces it.
const floodHold = 500 * time.Millisecond

// attackers records what the connection-flood and slow-client attackers
// did to one env's server.
type attackers struct {
	mu       sync.Mutex
	waves    int
	opened   int
	failed   int
	firstErr error
	stopped  chan struct{}
}

// wave opens one wave of connections; the caller closes it.
func (a *attackers) wave(ctx context.Context, opts hostile.FloodOptions) *hostile.Flood {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f, err := hostile.StartFlood(wctx, opts)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.waves++
	if err != nil {
		if ctx.Err() == nil {
			a.failed++
			if a.firstErr == nil {
				a.firstErr = err
			}
		}
		return nil
	}
	a.opened += f.Len()
	return f
}

// startAttackers, with -chaos.flood (make chaos), floods e's server: a
// first wave of connections is open before it returns, so that even a
// short matrix row runs under it, and a new wave replaces the last every
// floodHold until the test ends. The faults of the matrix and of the
// chaos test must be survived with the server under that load too.
func (e *env) startAttackers() {
	if !*chaosFlood {
		return
	}
	a := &attackers{stopped: make(chan struct{})}
	ctx, cancel := context.WithCancel(e.ctx)
	opts := floodWave
	opts.Addr = strings.TrimPrefix(e.srv.URL(), "http://")
	opts.Header = http.Header{"Authorization": {"Bearer " + testToken}}
	f := a.wave(ctx, opts)
	go func() {
		defer close(a.stopped)
		for {
			select {
			case <-ctx.Done():
			case <-time.After(floodHold):
			}
			if f != nil {
				f.Close()
			}
			if ctx.Err() != nil {
				return
			}
			f = a.wave(ctx, opts)
		}
	}()
	e.t.Cleanup(func() {
		cancel()
		<-a.stopped
		a.mu.Lock()
		defer a.mu.Unlock()
		e.t.Logf("attackers: %d waves, %d connections opened, %d waves failed to open (first: %v)", a.waves, a.opened, a.failed, a.firstErr)
	})
}
