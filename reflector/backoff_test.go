package reflector

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBackoffDoublesCapsAndResets(t *testing.T) {
	b := backoff{cfg: Backoff{Initial: time.Second, Max: 10 * time.Second, ResetAfter: time.Minute}}
	now := time.Unix(0, 0)
	var got []time.Duration
	for range 6 {
		got = append(got, b.next(now))
		now = now.Add(time.Second)
	}
	assert.Equal(t, []time.Duration{1, 2, 4, 8, 10, 10}, scale(got, time.Second))
	assert.Equal(t, time.Second, b.next(now.Add(time.Minute)), "a quiet minute resets")
	assert.Equal(t, 10*time.Second, b.slow())
}

func TestBackoffJitterStaysInRange(t *testing.T) {
	r := 0.0
	b := backoff{cfg: Backoff{Initial: time.Second, Max: time.Minute, ResetAfter: time.Hour, Jitter: 0.5}, rand: func() float64 { return r }}
	now := time.Unix(0, 0)
	assert.Equal(t, time.Second, b.next(now), "rand 0: no stretch")
	r = 0.999
	d := b.next(now)
	assert.True(t, d >= 2*time.Second && d < 3*time.Second, "2s with jitter 0.5 = %v, want [2s, 3s)", d)
}

// scale divides each duration by unit.
func scale(ds []time.Duration, unit time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d / unit
	}
	return out
}
