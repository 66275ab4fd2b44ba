package rest

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRateLimiterBucket(t *testing.T) {
	clock := newFakeClock()
	l := newRateLimiter(2, 3, clock) // 2 per second, burst 3
	ctx := t.Context()

	// The burst passes at once.
	for range 3 {
		require.NoError(t, l.Wait(ctx))
	}
	assert.Empty(t, clock.Pending(), "no wait within the burst")

	// The fourth waits half a second (one token at 2 QPS).
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx) }()
	require.NoError(t, clock.WaitForTimer(ctx, 500*time.Millisecond))
	select {
	case <-done:
		t.Fatal("Wait returned before its token was due")
	default:
	}
	clock.Step(500 * time.Millisecond)
	require.NoError(t, <-done)

	// After a long idle the bucket is full again, but no fuller.
	clock.Step(time.Hour)
	for range 3 {
		require.NoError(t, l.Wait(ctx))
	}
	assert.Empty(t, clock.Pending())
	go func() { done <- l.Wait(ctx) }()
	require.NoError(t, clock.WaitForTimer(ctx, 500*time.Millisecond))
	clock.Step(500 * time.Millisecond)
	require.NoError(t, <-done)
}

func TestRateLimiterCancel(t *testing.T) {
	clock := newFakeClock()
	l := newRateLimiter(1, 1, clock)
	require.NoError(t, l.Wait(t.Context()))

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- l.Wait(ctx) }()
	require.NoError(t, clock.WaitForTimers(t.Context(), 1))
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Empty(t, clock.Pending(), "the cancelled wait stops its timer")

	// The cancelled waiter gave its token back: after one second exactly
	// one request passes without waiting.
	clock.Step(time.Second)
	require.NoError(t, l.Wait(t.Context()))
	assert.Empty(t, clock.Pending())

	cancel()
	assert.ErrorIs(t, l.Wait(ctx), context.Canceled)
}

func TestClientRateLimit(t *testing.T) {
	var served atomic.Int32
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte(`{}`))
	}))
	clock := newFakeClock()
	c, err := NewClient(&Config{Host: srv.URL, QPS: 1, Burst: 2, Clock: clock})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	get := func() error { return c.Get().Resource("pods").Do(t.Context()).Error() }
	require.NoError(t, get())
	require.NoError(t, get())
	done := make(chan error, 1)
	go func() { done <- get() }()
	require.NoError(t, clock.WaitForTimer(t.Context(), time.Second))
	assert.Equal(t, int32(2), served.Load(), "the third request waits for a token")
	clock.Step(time.Second)
	require.NoError(t, <-done)
	assert.Equal(t, int32(3), served.Load())
}

func TestClientRateLimitDefaults(t *testing.T) {
	clock := newFakeClock()
	c, err := NewClient(&Config{Host: "https://x", Clock: clock})
	require.NoError(t, err)
	require.NotNil(t, c.limiter)
	assert.Equal(t, float64(DefaultQPS), c.limiter.qps)
	assert.Equal(t, float64(DefaultBurst), c.limiter.burst)
	// A 50,000-object list in pages of 500 is 100 requests: the default
	// burst lets them all through without waiting.
	for range 100 {
		require.NoError(t, c.limiter.Wait(t.Context()))
	}
	assert.Empty(t, clock.Pending())

	c, err = NewClient(&Config{Host: "https://x", QPS: -1})
	require.NoError(t, err)
	assert.Nil(t, c.limiter, "negative QPS disables the limiter")

	c, err = NewClient(&Config{Host: "https://x", QPS: 500})
	require.NoError(t, err)
	assert.Equal(t, float64(500), c.limiter.burst, "burst defaults to at least QPS")
}
