package reflector

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/metrics"
)

// ResourceVersionMatch says how the server reads a list's resourceVersion
// (docs/api-semantics.md, "Which state a list reads").
type ResourceVersionMatch string

// The values of ResourceVersionMatch.
const (
	// MatchUnset leaves the legacy rules in force: "0" means any version
	// (possibly stale), N without limit means not older than N, N with a
	// limit means exactly N.
	MatchUnset ResourceVersionMatch = ""
	// MatchExact asks for exactly the resourceVersion given; 410 if it has
	// been compacted.
	MatchExact ResourceVersionMatch = "Exact"
	// MatchNotOlderThan asks for any state at least as new as the
	// resourceVersion given.
	MatchNotOlderThan ResourceVersionMatch = "NotOlderThan"
)

// ListOptions are the query parameters of one LIST or WATCH request, as the
// API server names them. The zero value asks for everything, at the most
// recent resourceVersion (a consistent read).
type ListOptions struct {
	// LabelSelector and FieldSelector filter the objects, in the server's
	// selector syntax; empty selects everything.
	LabelSelector string
	FieldSelector string
	// ResourceVersion and ResourceVersionMatch say which state to read (list)
	// or where to start (watch). Empty means most recent.
	ResourceVersion      string
	ResourceVersionMatch ResourceVersionMatch
	// Limit and Continue page a list; zero and empty ask for one page.
	Limit    int64
	Continue string
	// TimeoutSeconds bounds a watch on the server side; zero leaves it to
	// the server.
	TimeoutSeconds int64
	// AllowWatchBookmarks asks for BOOKMARK events on a watch.
	AllowWatchBookmarks bool
	// SendInitialEvents turns a watch into a streaming list: an ADDED event
	// for every object, then a bookmark annotated k8s.io/initial-events-end.
	SendInitialEvents bool
	// ShardSelector restricts a list or watch to one shard (see Shard);
	// empty is the whole resource.
	ShardSelector string
}

// Values returns the options as URL query parameters, leaving out the ones
// that are unset, so that a request carries exactly what was asked.
func (o ListOptions) Values() url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("labelSelector", o.LabelSelector)
	set("fieldSelector", o.FieldSelector)
	set("resourceVersion", o.ResourceVersion)
	set("resourceVersionMatch", string(o.ResourceVersionMatch))
	if o.Limit > 0 {
		v.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	set("continue", o.Continue)
	if o.TimeoutSeconds > 0 {
		v.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		v.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents {
		v.Set("sendInitialEvents", "true")
	}
	set("shardSelector", o.ShardSelector)
	return v
}

// Options configure a Reflector. The zero value is the production setting:
// pages of 500, streaming lists tried first, watches of 5 to 10 minutes,
// backoff from 800ms to 30s, the wall clock, no resync, no hooks.
type Options struct {
	// Name names the resource in errors and traces ("configmaps"). Empty
	// uses the Go type's name.
	Name string

	// PageSize is the limit of each page of a paginated list. Zero means
	// 500; a negative value lists in one request.
	PageSize int64

	// MaxListItems bounds the objects of one list: every page of a
	// paginated list together, or the initial events of a streaming list.
	// MaxListPages bounds the pages of a paginated list. A list past
	// either fails with ErrListTooLarge instead of growing memory without
	// end (a server that pages for ever, or whose one page never ends).
	// Zero means DefaultMaxListItems (1,000,000) and enough pages for
	// MaxListItems at PageSize, at least DefaultMaxListPages (10,000).
	MaxListItems int
	MaxListPages int

	// DisableStreamingList makes the reflector start with a paginated LIST
	// instead of a streaming list (a WATCH with sendInitialEvents=true).
	// When it is false the reflector tries a streaming list and falls back
	// to LIST then WATCH if the server rejects it or never finishes it.
	DisableStreamingList bool

	// InitialEventsTimeout bounds how long a streaming list may take to
	// deliver its k8s.io/initial-events-end bookmark before the reflector
	// gives up on streaming and lists instead. Zero means 2 minutes.
	InitialEventsTimeout time.Duration

	// MinWatchTimeout and MaxWatchTimeout bound the timeoutSeconds each
	// watch asks for: a value drawn at random in [Min, Max), so that many
	// reflectors do not reconnect at the same moment. The reflector also
	// ends a watch itself if the server keeps it open well past that (a
	// tenth longer, between 1 and 30 seconds).
	// Zero means 5 and 10 minutes; Max defaults to twice Min.
	MinWatchTimeout time.Duration
	MaxWatchTimeout time.Duration

	// ResyncPeriod, when positive, makes the reflector call the store's
	// Resync that often once it has synced. Zero means never.
	ResyncPeriod time.Duration

	// Backoff shapes the waits between retries.
	Backoff Backoff

	// Logger, if set, receives the reflector's log lines (logging.go), as
	// they are: the caller labels it. Nil takes the logger the context of
	// Run carries (WithLogger), labelled with the reflector's name and what
	// it lists; with neither the reflector logs nothing.
	Logger *slog.Logger

	// Metrics, if set, receives the reflector's measurements (metrics.go):
	// lists, watches and their durations, relists by cause.
	Metrics metrics.Sink

	// Shard, if set, restricts every list and watch to one shard of the
	// resource (shard.go): processes with shards that tile the hash
	// space, ShardOf(i, n) for i in [0, n), cache every object exactly
	// once. The server must serve shardSelector; one that does not is
	// reported as ErrShardNotServed and nothing is synced. A sharded
	// reflector lists with LIST, never streaming lists.
	Shard *Shard

	// ResourceGoneMaxWait caps the wait between two probes of a resource
	// the server no longer serves (a 404 on a list or watch: its CRD
	// deleted, its API group removed; see ResourceGone). The waits start
	// at Backoff.Initial and double up to it. Zero means
	// DefaultResourceGoneMaxWait (2 minutes).
	ResourceGoneMaxWait time.Duration

	// EmptyWhenGone makes the reflector replace its store's contents with
	// nothing when it finds the resource gone, so that every object is
	// deleted (an informer's handlers get OnDelete with finalStateUnknown
	// set). By default the store keeps what it held, as last seen; a CRD
	// deleted on a real server sends a DELETED event for each of its
	// objects first, which empties the store either way.
	EmptyWhenGone bool

	// Clock is the source of time; nil means clock.Real.
	Clock clock.Clock

	// OnError, if set, is called with every error the reflector meets,
	// classified, together with what it does next. It runs on the
	// reflector's goroutine and must not block.
	OnError func(*Error)

	// Trace, if set, is called with every state change and every step the
	// reflector takes (see TraceEvent). It runs on the reflector's goroutine
	// and must not block; it is meant for explain modes and tests.
	Trace func(TraceEvent)

	// Applied, if set, receives every event the reflector writes to the
	// store (or to a streaming list's buffer) — what Trace would receive
	// as an EventApplied — by value: a hook that sees every event of a
	// burst without allocating a TraceEvent for each. When Applied is
	// set, Trace no longer receives EventApplied. It runs on the
	// reflector's goroutine and must not block.
	Applied func(EventApplied)
}

// Backoff shapes the exponential backoff between retries: each failure
// waits Initial, then twice as long, up to Max, each wait stretched by a
// random fraction up to Jitter. After ResetAfter without a failure the next
// wait starts again from Initial. Errors only a human can fix (401, 403,
// 404, 400, 422) are retried every Max.
type Backoff struct {
	// Initial is the first wait; zero means 800ms.
	Initial time.Duration
	// Max caps a wait before jitter; zero means 30s.
	Max time.Duration
	// ResetAfter is the quiet period that resets the backoff; zero means
	// 2 minutes.
	ResetAfter time.Duration
	// Jitter stretches each wait d to a random value in [d, d*(1+Jitter));
	// zero means 1.0. Use NoJitter for exact waits.
	Jitter float64
}

// NoJitter, as Backoff.Jitter, makes every wait exact.
const NoJitter = -1

// The defaults of Options and Backoff.
const (
	DefaultPageSize             = 500
	DefaultMaxListItems         = 1_000_000
	DefaultMaxListPages         = 10_000
	DefaultInitialEventsTimeout = 2 * time.Minute
	DefaultMinWatchTimeout      = 5 * time.Minute
	DefaultBackoffInitial       = 800 * time.Millisecond
	DefaultBackoffMax           = 30 * time.Second
	DefaultBackoffResetAfter    = 2 * time.Minute
	DefaultBackoffJitter        = 1.0
)

// watchDeadline is how long the reflector lets a watch that asked for
// timeoutSeconds run before ending it itself: the timeout plus a tenth of
// it, at least a second and at most 30 seconds. A server that never closes
// a watch, or a connection that died without a reset, is noticed.
func watchDeadline(timeoutSeconds int64) time.Duration {
	d := time.Duration(timeoutSeconds) * time.Second
	return d + min(max(d/10, time.Second), 30*time.Second)
}

// ErrInvalidOptions is wrapped by every error NewReflector returns for bad
// Options.
var ErrInvalidOptions = errors.New("invalid reflector options")

// withDefaults checks o and fills in its zero fields.
func (o Options) withDefaults() (Options, error) {
	bad := func(format string, args ...any) (Options, error) {
		return Options{}, fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"InitialEventsTimeout", o.InitialEventsTimeout},
		{"MinWatchTimeout", o.MinWatchTimeout},
		{"MaxWatchTimeout", o.MaxWatchTimeout},
		{"ResyncPeriod", o.ResyncPeriod},
		{"ResourceGoneMaxWait", o.ResourceGoneMaxWait},

		{"Backoff.Initial", o.Backoff.Initial},
		{"Backoff.Max", o.Backoff.Max},
		{"Backoff.ResetAfter", o.Backoff.ResetAfter},
	} {
		if d.v < 0 {
			return bad("%s is negative (%v)", d.name, d.v)
		}
	}
	if o.Shard != nil {
		if err := o.Shard.check(); err != nil {
			return bad("%v", err)
		}
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.MaxListItems < 0 || o.MaxListPages < 0 {
		return bad("MaxListItems (%d) and MaxListPages (%d) must not be negative", o.MaxListItems, o.MaxListPages)
	}
	if o.MaxListItems == 0 {
		o.MaxListItems = DefaultMaxListItems
	}
	if o.MaxListPages == 0 {
		o.MaxListPages = DefaultMaxListPages
		if o.PageSize > 0 {
			o.MaxListPages = int(max(int64(DefaultMaxListPages), 2*int64(o.MaxListItems)/o.PageSize))
		}
	}
	if o.InitialEventsTimeout == 0 {
		o.InitialEventsTimeout = DefaultInitialEventsTimeout
	}
	if o.MinWatchTimeout == 0 {
		o.MinWatchTimeout = DefaultMinWatchTimeout
	}
	if o.MinWatchTimeout < time.Second {
		return bad("MinWatchTimeout %v is under a second; timeoutSeconds counts whole seconds", o.MinWatchTimeout)
	}
	if o.MaxWatchTimeout == 0 {
		o.MaxWatchTimeout = 2 * o.MinWatchTimeout
	}
	if o.MaxWatchTimeout < o.MinWatchTimeout {
		return bad("MaxWatchTimeout %v is less than MinWatchTimeout %v", o.MaxWatchTimeout, o.MinWatchTimeout)
	}
	b := &o.Backoff
	if b.Initial == 0 {
		b.Initial = DefaultBackoffInitial
	}
	if b.Max == 0 {
		b.Max = max(DefaultBackoffMax, b.Initial)
	}
	if b.Max < b.Initial {
		return bad("Backoff.Max %v is less than Backoff.Initial %v", b.Max, b.Initial)
	}
	if o.ResourceGoneMaxWait == 0 {
		o.ResourceGoneMaxWait = max(DefaultResourceGoneMaxWait, b.Initial)
	}
	if o.ResourceGoneMaxWait < b.Initial {
		return bad("ResourceGoneMaxWait %v is less than Backoff.Initial %v", o.ResourceGoneMaxWait, b.Initial)
	}
	if b.ResetAfter == 0 {
		b.ResetAfter = DefaultBackoffResetAfter
	}
	switch {
	case b.Jitter == 0:
		b.Jitter = DefaultBackoffJitter
	case b.Jitter == NoJitter:
		b.Jitter = 0
	case b.Jitter < 0:
		return bad("Backoff.Jitter %v is negative (use NoJitter for none)", b.Jitter)
	}
	o.Clock = clock.Or(o.Clock)
	return o, nil
}
