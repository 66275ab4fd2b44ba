package workqueue

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
)

func TestItemExponentialBackoffDelays(t *testing.T) {
	tests := []struct {
		name      string
		base, max time.Duration
		want      []time.Duration // successive When results for one item
	}{
		{
			name: "doubles from base",
			base: time.Millisecond, max: time.Hour,
			want: []time.Duration{1 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond, 16 * time.Millisecond},
		},
		{
			name: "capped at max",
			base: 5 * time.Millisecond, max: 30 * time.Millisecond,
			want: []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 30 * time.Millisecond},
		},
		{
			name: "base equals max",
			base: time.Second, max: time.Second,
			want: []time.Duration{time.Second, time.Second, time.Second},
		},
		{
			name: "odd base",
			base: 3 * time.Nanosecond, max: time.Second,
			want: []time.Duration{3, 6, 12, 24, 48},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewItemExponentialBackoff[string](tt.base, tt.max)
			require.NoError(t, err)
			for i, want := range tt.want {
				assert.Equal(t, want, r.When("a"), "When #%d", i+1)
				assert.Equal(t, i+1, r.NumRequeues("a"))
			}
			assert.Equal(t, tt.base, r.When("b"), "another item has its own count")
		})
	}
}

func TestBackoffNeverOverflows(t *testing.T) {
	tests := []struct {
		base, max time.Duration
		n         int
		want      time.Duration
	}{
		{time.Millisecond, time.Hour, 0, time.Millisecond},
		{time.Millisecond, time.Hour, 10, 1024 * time.Millisecond},
		{time.Millisecond, time.Hour, 40, time.Hour},
		{time.Millisecond, time.Hour, 62, time.Hour},
		{time.Millisecond, time.Hour, 63, time.Hour},
		{time.Millisecond, time.Hour, math.MaxInt, time.Hour},
		{1, math.MaxInt64, 62, 1 << 62},
		{1, math.MaxInt64, 63, math.MaxInt64},
		{time.Hour, math.MaxInt64, 1000, math.MaxInt64},
	}
	for _, tt := range tests {
		got := backoff(tt.base, tt.max, tt.n)
		assert.Equal(t, tt.want, got, "backoff(%v, %v, %d)", tt.base, tt.max, tt.n)
		assert.Positive(t, got, "backoff(%v, %v, %d)", tt.base, tt.max, tt.n)
	}
}

func TestItemExponentialBackoffForget(t *testing.T) {
	r, err := NewItemExponentialBackoff[string](time.Millisecond, time.Second)
	require.NoError(t, err)
	r.When("a")
	r.When("a")
	require.Equal(t, 2, r.NumRequeues("a"))
	r.Forget("a")
	assert.Equal(t, 0, r.NumRequeues("a"))
	assert.Equal(t, time.Millisecond, r.When("a"), "after Forget the backoff starts at base")
}

func TestTokenBucketOnFakeClock(t *testing.T) {
	clk := clock.NewFake(epoch)
	r, err := NewTokenBucket[string](10, 3, clk) // a token every 100ms, 3 at most
	require.NoError(t, err)

	// The bucket starts full: a burst of 3 goes through.
	for i := range 3 {
		assert.Zero(t, r.When("x"), "burst When #%d", i+1)
	}
	// Then each When reserves the next token to be minted.
	assert.Equal(t, 100*time.Millisecond, r.When("x"))
	assert.Equal(t, 200*time.Millisecond, r.When("x"))
	assert.Equal(t, 300*time.Millisecond, r.When("x"))

	// 300ms later the three reserved tokens have been minted and used.
	clk.Step(300 * time.Millisecond)
	assert.Equal(t, 100*time.Millisecond, r.When("x"))

	// A long idle period refills the bucket to burst, not beyond.
	clk.Step(time.Hour)
	for i := range 3 {
		assert.Zero(t, r.When("x"), "refilled burst When #%d", i+1)
	}
	assert.Equal(t, 100*time.Millisecond, r.When("x"))

	// Half a token's time gives half a token.
	clk.Step(time.Hour)
	for range 3 {
		r.When("x")
	}
	clk.Step(50 * time.Millisecond)
	assert.Equal(t, 50*time.Millisecond, r.When("x"))

	assert.Zero(t, r.NumRequeues("x"), "the bucket keeps no per-item count")
	r.Forget("x")
}

func TestTokenBucketFractionalRate(t *testing.T) {
	clk := clock.NewFake(epoch)
	r, err := NewTokenBucket[int](0.5, 1, clk) // one token every 2s
	require.NoError(t, err)
	assert.Zero(t, r.When(1))
	assert.Equal(t, 2*time.Second, r.When(1))
	assert.Equal(t, 4*time.Second, r.When(2))
}

func TestMaxOfTakesTheLongestDelay(t *testing.T) {
	clk := clock.NewFake(epoch)
	backoff, err := NewItemExponentialBackoff[string](10*time.Millisecond, time.Second)
	require.NoError(t, err)
	bucket, err := NewTokenBucket[string](1, 2, clk)
	require.NoError(t, err)
	r, err := NewMaxOf[string](backoff, bucket)
	require.NoError(t, err)

	assert.Equal(t, 10*time.Millisecond, r.When("a"), "backoff dominates while the bucket has tokens")
	assert.Equal(t, 20*time.Millisecond, r.When("a"))
	assert.Equal(t, time.Second, r.When("b"), "bucket empty: its 1s wait dominates b's 10ms")
	assert.Equal(t, 2, r.NumRequeues("a"))
	assert.Equal(t, 1, r.NumRequeues("b"))
	r.Forget("a")
	assert.Equal(t, 0, r.NumRequeues("a"))
}

func TestMaxOfNothingNeverWaits(t *testing.T) {
	r, err := NewMaxOf[string]()
	require.NoError(t, err)
	assert.Zero(t, r.When("a"))
	assert.Zero(t, r.NumRequeues("a"))
}

func TestDefaultRateLimiter(t *testing.T) {
	clk := clock.NewFake(epoch)
	r := NewDefaultRateLimiter[string](clk)
	assert.Equal(t, DefaultBackoffBase, r.When("a"))
	assert.Equal(t, 2*DefaultBackoffBase, r.When("a"))
	for range DefaultBurst - 2 { // a took two tokens: this empties the bucket
		r.When("b")
	}
	assert.Equal(t, time.Second/DefaultQPS, r.When("c"), "past the burst, the bucket's wait dominates")
	assert.Equal(t, 2, r.NumRequeues("a"))
}

func TestRateLimiterConstructorsRejectBadSettings(t *testing.T) {
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"zero base", func() error { _, err := NewItemExponentialBackoff[int](0, time.Second); return err }, "base 0s must be positive"},
		{"negative base", func() error { _, err := NewItemExponentialBackoff[int](-time.Second, time.Second); return err }, "base -1s must be positive"},
		{"max below base", func() error { _, err := NewItemExponentialBackoff[int](time.Second, time.Millisecond); return err }, "max 1ms is less than base 1s"},
		{"zero qps", func() error { _, err := NewTokenBucket[int](0, 1, nil); return err }, "qps 0 must be positive"},
		{"negative qps", func() error { _, err := NewTokenBucket[int](-1, 1, nil); return err }, "qps -1 must be positive"},
		{"NaN qps", func() error { _, err := NewTokenBucket[int](math.NaN(), 1, nil); return err }, "qps NaN must be positive"},
		{"infinite qps", func() error { _, err := NewTokenBucket[int](math.Inf(1), 1, nil); return err }, "qps +Inf must be positive and finite"},
		{"zero burst", func() error { _, err := NewTokenBucket[int](1, 0, nil); return err }, "burst 0 must be at least 1"},
		{"nil limiter", func() error { _, err := NewMaxOf[int](NewDefaultRateLimiter[int](nil), nil); return err }, "limiter 1 is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.make()
			require.ErrorIs(t, err, ErrInvalidRateLimiter)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
