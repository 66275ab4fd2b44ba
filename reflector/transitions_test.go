package reflector

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/meta"
)

func TestTransitions(t *testing.T) {
	refused := &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}
	throttled := status(429, meta.ReasonTooManyRequests)
	throttled.Details = &meta.StatusDetails{RetryAfterSeconds: 5}
	gone := status(410, meta.ReasonExpired)
	unavailable := status(503, meta.ReasonServiceUnavailable)
	forbidden := status(403, meta.ReasonForbidden)
	notFound := status(404, meta.ReasonNotFound)
	invalid := status(422, meta.ReasonInvalid)
	stale := &StaleError{ResourceVersion: "5", LastSynced: "9"}

	for _, tc := range []transition{
		// Paginated lists.
		{"first list succeeds", memory{}, Listing{ResourceVersion: "0"}, outcome{rv: "10"},
			Watching{ResourceVersion: "10"}, memory{lastSync: "10"}},
		{"list 410 relists consistently", memory{lastSync: "10"}, Listing{ResourceVersion: "10", Match: MatchNotOlderThan}, outcome{err: gone},
			Listing{}, memory{lastSync: "10", unusable: true}},
		{"consistent list 410 waits first", memory{unusable: true}, Listing{}, outcome{err: gone},
			BackingOff{Delay: time.Second, Then: Listing{}}, memory{unusable: true}},
		{"stale list relists consistently", memory{lastSync: "9"}, Listing{ResourceVersion: "9", Match: MatchNotOlderThan}, outcome{err: stale},
			Listing{}, memory{lastSync: "9", unusable: true}},
		{"list 503 backs off and retries", memory{}, Listing{ResourceVersion: "0"}, outcome{err: unavailable},
			BackingOff{Delay: time.Second, Then: Listing{ResourceVersion: "0"}}, memory{}},
		{"list 429 waits Retry-After", memory{}, Listing{ResourceVersion: "0"}, outcome{err: throttled},
			BackingOff{Delay: 5 * time.Second, Then: Listing{ResourceVersion: "0"}}, memory{}},
		{"list 403 retries slowly", memory{}, Listing{ResourceVersion: "0"}, outcome{err: forbidden},
			BackingOff{Delay: 30 * time.Second, Then: Listing{ResourceVersion: "0"}}, memory{}},
		{"list 404 finds the resource gone", memory{}, Listing{ResourceVersion: "0"}, outcome{err: notFound},
			ResourceGone{Since: time.Unix(1000, 0), Delay: time.Second}, memory{unusable: true}},
		{"streaming list 404 finds the resource gone", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: notFound},
			ResourceGone{Since: time.Unix(1000, 0), Delay: time.Second}, memory{streaming: true, unusable: true}},
		{"a resource gone is probed by a consistent list", memory{unusable: true}, ResourceGone{Delay: time.Second}, outcome{},
			Listing{}, memory{unusable: true}},

		// Streaming lists.
		{"streaming list succeeds", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{rv: "10", opened: true},
			Watching{ResourceVersion: "10", Continued: true}, memory{streaming: true, lastSync: "10"}},
		{"streaming list rejected with 422 falls back", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: invalid},
			Listing{ResourceVersion: "0"}, memory{}},
		{"streaming list rejected with 503 falls back", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: unavailable},
			Listing{ResourceVersion: "0"}, memory{}},
		{"fallback after a sync lists not older than it", memory{streaming: true, lastSync: "20"}, StreamingList{ResourceVersion: "20", Attempt: 1}, outcome{err: invalid},
			Listing{ResourceVersion: "20", Match: MatchNotOlderThan}, memory{lastSync: "20"}},
		{"streaming list 429 retries", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: throttled},
			BackingOff{Delay: 5 * time.Second, Then: StreamingList{Attempt: 2}}, memory{streaming: true}},
		{"streaming list connection refused retries", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: refused},
			BackingOff{Delay: time.Second, Then: StreamingList{Attempt: 2}}, memory{streaming: true}},
		{"streaming list 410 retries consistently", memory{streaming: true, lastSync: "20"}, StreamingList{ResourceVersion: "20", Attempt: 1}, outcome{err: gone},
			StreamingList{Attempt: 2}, memory{streaming: true, lastSync: "20", unusable: true}},
		{"consistent streaming list 410 waits", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: gone, opened: true},
			BackingOff{Delay: time.Second, Then: StreamingList{Attempt: 2}}, memory{streaming: true, unusable: true}},
		{"streaming list never finished falls back", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: ErrInitialEventsTimeout, opened: true},
			Listing{ResourceVersion: "0"}, memory{}},
		{"streaming list with a change before its end falls back", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: ErrNotStreaming, opened: true},
			Listing{ResourceVersion: "0"}, memory{}},
		{"streaming list cut short retries", memory{streaming: true}, StreamingList{Attempt: 1}, outcome{err: ErrInitialEventsIncomplete, opened: true},
			BackingOff{Delay: time.Second, Then: StreamingList{Attempt: 2}}, memory{streaming: true}},
		{"streaming list cut mid-frame retries", memory{streaming: true}, StreamingList{Attempt: 2}, outcome{err: io.ErrUnexpectedEOF, opened: true},
			BackingOff{Delay: time.Second, Then: StreamingList{Attempt: 3}}, memory{streaming: true}},
		{"third streaming list cut short falls back", memory{streaming: true}, StreamingList{Attempt: 3}, outcome{err: ErrInitialEventsIncomplete, opened: true},
			Listing{ResourceVersion: "0"}, memory{}},
		{"stale streaming list relists consistently", memory{streaming: true, lastSync: "9"}, StreamingList{ResourceVersion: "9", Attempt: 1}, outcome{err: stale, opened: true},
			StreamingList{Attempt: 1}, memory{streaming: true, lastSync: "9", unusable: true}},

		// Watches.
		{"watch ends normally: rewatch from its last rv", memory{lastSync: "15"}, Watching{ResourceVersion: "10"}, outcome{rv: "15", opened: true, events: 3},
			Watching{ResourceVersion: "15"}, memory{lastSync: "15"}},
		{"watch ends with no progress: rewatch from the same rv", memory{lastSync: "10", shortWatches: 2}, Watching{ResourceVersion: "10"}, outcome{opened: true, events: 0, elapsed: time.Minute},
			Watching{ResourceVersion: "10"}, memory{lastSync: "10"}},
		{"watch closed at once backs off", memory{lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: ErrWatchClosedEarly, opened: true},
			BackingOff{Delay: time.Second, Then: Watching{ResourceVersion: "10"}}, memory{lastSync: "10", shortWatches: 1}},
		{"third watch closed at once relists", memory{lastSync: "10", shortWatches: 2}, Watching{ResourceVersion: "10"}, outcome{err: ErrWatchClosedEarly, opened: true},
			BackingOff{Delay: time.Second, Then: Listing{}}, memory{lastSync: "10", unusable: true}},
		{"watch 410 relists consistently", memory{lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: gone, opened: true},
			Listing{}, memory{lastSync: "10", unusable: true}},
		{"watch 410 relists by streaming while it works", memory{streaming: true, lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: gone},
			StreamingList{Attempt: 1}, memory{streaming: true, lastSync: "10", unusable: true}},
		{"watch 429 waits then rewatches", memory{lastSync: "12"}, Watching{ResourceVersion: "10"}, outcome{err: throttled, rv: "12"},
			BackingOff{Delay: 5 * time.Second, Then: Watching{ResourceVersion: "12"}}, memory{lastSync: "12"}},
		{"watch 503 backs off then rewatches", memory{lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: unavailable},
			BackingOff{Delay: time.Second, Then: Watching{ResourceVersion: "10"}}, memory{lastSync: "10"}},
		{"watch connection refused backs off then rewatches", memory{lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: refused},
			BackingOff{Delay: time.Second, Then: Watching{ResourceVersion: "10"}}, memory{lastSync: "10"}},
		{"watch 403 rewatches slowly", memory{lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: forbidden},
			BackingOff{Delay: 30 * time.Second, Then: Watching{ResourceVersion: "10"}}, memory{lastSync: "10"}},
		{"watch 404 finds the resource gone", memory{lastSync: "10"}, Watching{ResourceVersion: "10"}, outcome{err: notFound},
			ResourceGone{Since: time.Unix(1000, 0), Delay: time.Second}, memory{lastSync: "10", unusable: true}},

		// Waiting and stopping.
		{"a wait leads to what follows it", memory{}, BackingOff{Delay: time.Second, Then: Watching{ResourceVersion: "3"}}, outcome{},
			Watching{ResourceVersion: "3"}, memory{}},
		{"cancellation stops any state", memory{}, Watching{ResourceVersion: "3"}, outcome{stopped: true, err: gone},
			Stopped{}, memory{}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
}

// memory is what the machine remembers between states.
type memory struct {
	streaming    bool
	lastSync     string
	unusable     bool
	shortWatches int
}

// transition is one row of TestTransitions: from state from with memory
// before, outcome out leads to state want with memory after.
type transition struct {
	name   string
	before memory
	from   State
	out    outcome
	want   State
	after  memory
}

// check runs the transition on a machine (1 s to 30 s backoff, the clock
// at 1000 s) and compares the next state and memory.
func (tc transition) check(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &machine{
		backoff:      backoff{cfg: Backoff{Initial: time.Second, Max: 30 * time.Second, ResetAfter: 2 * time.Minute}},
		now:          func() time.Time { return now },
		streaming:    tc.before.streaming,
		lastSync:     tc.before.lastSync,
		unusable:     tc.before.unusable,
		shortWatches: tc.before.shortWatches,
		goneMax:      2 * time.Minute,
	}
	got := m.next(tc.from, tc.out)
	assert.Equal(t, tc.want, stripCauses(got), "next(%v, %+v)", tc.from, tc.out)
	assert.Equal(t, tc.after, memory{m.streaming, m.lastSync, m.unusable, m.shortWatches}, "machine memory")
}

func TestTransitionsKeepTheCause(t *testing.T) {
	m := &machine{backoff: backoff{cfg: Backoff{Initial: time.Second, Max: time.Second, ResetAfter: time.Minute}}, now: time.Now}
	gone := status(410, meta.ReasonExpired)
	next := m.next(Watching{ResourceVersion: "1"}, outcome{err: gone})
	l, ok := next.(Listing)
	if assert.True(t, ok, "next = %v", next) {
		assert.Same(t, gone, l.Cause)
	}
	m.streaming = true
	next = m.next(StreamingList{Attempt: 1}, outcome{err: ErrInitialEventsTimeout})
	l, ok = next.(Listing)
	if assert.True(t, ok, "next = %v", next) {
		assert.True(t, errors.Is(l.Cause, ErrInitialEventsTimeout), "cause %v", l.Cause)
	}
}

func TestStateStrings(t *testing.T) {
	for _, tc := range []struct {
		s    State
		want string
	}{
		{Listing{ResourceVersion: "0"}, "listing rv=0"},
		{Listing{Cause: errors.New("x")}, `listing rv="" after: x`},
		{Listing{ResourceVersion: "9", Match: MatchNotOlderThan}, "listing rv=9 match=NotOlderThan"},
		{StreamingList{Attempt: 2}, `streaming list rv="" attempt 2`},
		{Watching{ResourceVersion: "17"}, "watching rv=17"},
		{Watching{ResourceVersion: "17", Continued: true}, "watching rv=17 (continuing the streaming list)"},
		{BackingOff{Delay: 1600 * time.Millisecond, Then: Watching{ResourceVersion: "17"}, Cause: errors.New("503")}, "backing off 1.6s after: 503, then watching rv=17"},
		{ResourceGone{Delay: 2 * time.Second}, "resource gone, next probe in 2s"},
		{ResourceGone{Probes: 3, Delay: 8 * time.Second, Cause: errors.New("404")}, "resource gone (3 probes failed), next probe in 8s after: 404"},
		{Stopped{}, "stopped"},
	} {
		assert.Equal(t, tc.want, tc.s.String())
	}
}
