package workqueue

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// ErrInvalidRateLimiter is wrapped by the error a rate limiter constructor
// returns for a setting it cannot honour (a zero base, a negative rate...).
var ErrInvalidRateLimiter = errors.New("invalid rate limiter setting")

// RateLimiter decides how long a failed item waits before it is retried.
// Implementations must be safe for concurrent use.
type RateLimiter[K comparable] interface {
	// When records one more failure of item and returns how long to wait
	// before retrying it.
	When(item K) time.Duration
	// Forget clears item's failure history: the next When starts afresh.
	// Call it when the item has been processed successfully.
	Forget(item K)
	// NumRequeues returns how many failures of item have been recorded
	// since it was last forgotten.
	NumRequeues(item K) int
}

// Default rate limiter settings: per-item exponential backoff from 5ms up to
// 1000s, and 10 retries per second overall with bursts of 100.
const (
	DefaultBackoffBase = 5 * time.Millisecond
	DefaultBackoffMax  = 1000 * time.Second
	DefaultQPS         = 10
	DefaultBurst       = 100
)

// NewDefaultRateLimiter returns the limiter a queue uses when Options leave
// it unset: the maximum of an ItemExponentialBackoff (DefaultBackoffBase to
// DefaultBackoffMax) and a TokenBucket (DefaultQPS, DefaultBurst) on clock.
// A nil clock means clock.Real.
func NewDefaultRateLimiter[K comparable](clock clock.Clock) *MaxOf[K] {
	return &MaxOf[K]{limiters: []RateLimiter[K]{
		&ItemExponentialBackoff[K]{base: DefaultBackoffBase, maxDelay: DefaultBackoffMax, failures: make(map[K]int)},
		newTokenBucket[K](DefaultQPS, DefaultBurst, clock),
	}}
}

// ItemExponentialBackoff delays each item on its own: base after its first
// failure, doubling with each further failure, never more than its maximum. It is
// safe for concurrent use.
type ItemExponentialBackoff[K comparable] struct {
	base, maxDelay time.Duration

	// mu guards failures.
	mu sync.Mutex
	// failures counts When calls per item since its last Forget.
	failures map[K]int
}

// NewItemExponentialBackoff returns a per-item exponential backoff from base
// to maxDelay. base must be positive and maxDelay at least base; otherwise the error
// wraps ErrInvalidRateLimiter.
func NewItemExponentialBackoff[K comparable](base, maxDelay time.Duration) (*ItemExponentialBackoff[K], error) {
	if base <= 0 {
		return nil, fmt.Errorf("exponential backoff: base %v must be positive: %w", base, ErrInvalidRateLimiter)
	}
	if maxDelay < base {
		return nil, fmt.Errorf("exponential backoff: max %v is less than base %v: %w", maxDelay, base, ErrInvalidRateLimiter)
	}
	return &ItemExponentialBackoff[K]{base: base, maxDelay: maxDelay, failures: make(map[K]int)}, nil
}

// When returns base·2ⁿ, capped at the maximum, where n is the number of earlier
// failures of item, and counts this failure.
func (r *ItemExponentialBackoff[K]) When(item K) time.Duration {
	r.mu.Lock()
	n := r.failures[item]
	r.failures[item] = n + 1
	r.mu.Unlock()
	return backoff(r.base, r.maxDelay, n)
}

// backoff returns base·2ⁿ capped at maxDelay, without overflowing.
func backoff(base, maxDelay time.Duration, n int) time.Duration {
	if n >= 63 {
		return maxDelay
	}
	d := float64(base) * math.Exp2(float64(n))
	if d >= float64(maxDelay) {
		return maxDelay
	}
	return time.Duration(d)
}

// Forget clears item's failure count.
func (r *ItemExponentialBackoff[K]) Forget(item K) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

// NumRequeues returns item's failure count.
func (r *ItemExponentialBackoff[K]) NumRequeues(item K) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// TokenBucket limits retries of all items together to qps per second on
// average, allowing bursts of burst. Each When takes a token; when none is
// left it reserves the next one and returns how long until it is minted, so
// a flood of failures is spread out rather than refused. It keeps no
// per-item state: Forget does nothing and NumRequeues is always 0. It is
// safe for concurrent use.
type TokenBucket[K comparable] struct {
	qps   float64
	burst float64
	clock clock.Clock

	// mu guards tokens and last.
	mu sync.Mutex
	// tokens available at time last; negative when tokens are reserved
	// ahead of time.
	tokens float64
	last   time.Time
}

// NewTokenBucket returns a bucket that starts full with burst tokens and
// mints qps tokens per second, reading time from clock (nil means
// clock.Real). qps must be positive and finite and burst at least 1;
// otherwise the error wraps ErrInvalidRateLimiter.
func NewTokenBucket[K comparable](qps float64, burst int, clock clock.Clock) (*TokenBucket[K], error) {
	if !(qps > 0) || math.IsInf(qps, 1) {
		return nil, fmt.Errorf("token bucket: qps %v must be positive and finite: %w", qps, ErrInvalidRateLimiter)
	}
	if burst < 1 {
		return nil, fmt.Errorf("token bucket: burst %d must be at least 1: %w", burst, ErrInvalidRateLimiter)
	}
	return newTokenBucket[K](qps, burst, clock), nil
}

func newTokenBucket[K comparable](qps float64, burst int, clk clock.Clock) *TokenBucket[K] {
	clk = clock.Or(clk)
	return &TokenBucket[K]{qps: qps, burst: float64(burst), clock: clk, tokens: float64(burst), last: clk.Now()}
}

// When takes one token and returns how long until it exists: 0 if the
// bucket had one, otherwise the time to mint every token reserved so far.
func (r *TokenBucket[K]) When(K) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if elapsed := now.Sub(r.last); elapsed > 0 {
		r.tokens = min(r.burst, r.tokens+elapsed.Seconds()*r.qps)
		r.last = now
	}
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(math.Ceil(-r.tokens * float64(time.Second) / r.qps))
}

// Forget does nothing: the bucket is shared by all items.
func (r *TokenBucket[K]) Forget(K) {}

// NumRequeues returns 0: the bucket does not count per item.
func (r *TokenBucket[K]) NumRequeues(K) int { return 0 }

// MaxOf combines rate limiters: an item waits as long as the strictest of
// them says. It is safe for concurrent use if its limiters are.
type MaxOf[K comparable] struct {
	limiters []RateLimiter[K]
}

// NewMaxOf returns a limiter whose When is the maximum of limiters' (0 for
// none). Every limiter must be non-nil; otherwise the error wraps
// ErrInvalidRateLimiter.
func NewMaxOf[K comparable](limiters ...RateLimiter[K]) (*MaxOf[K], error) {
	for i, l := range limiters {
		if l == nil {
			return nil, fmt.Errorf("max of rate limiters: limiter %d is nil: %w", i, ErrInvalidRateLimiter)
		}
	}
	return &MaxOf[K]{limiters: append([]RateLimiter[K](nil), limiters...)}, nil
}

// When asks every limiter (each records the failure) and returns the
// longest delay.
func (r *MaxOf[K]) When(item K) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, l.When(item))
	}
	return longest
}

// Forget forgets item in every limiter.
func (r *MaxOf[K]) Forget(item K) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest count any limiter reports.
func (r *MaxOf[K]) NumRequeues(item K) int {
	var n int
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
