package reflector

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// One test per fault a network or a server can produce, each against the
// fake API server over loopback. Each ends with the same property: the
// store converges to exactly what a fresh list from the server holds, and
// no object's resourceVersion ever went backwards in it.

var configMaps = fakeapiserver.Match{Resource: "configmaps"}

// seed creates n ConfigMaps named prefix-0...
func (l *loopback) seed(prefix string, n int) {
	l.t.Helper()
	for i := range n {
		l.create(fmt.Sprintf("%s-%d", prefix, i), "0")
	}
}

// syncedLoopback starts a loopback with default options over n seeded
// ConfigMaps (cm-0...) and waits for the reflector's first sync.
func syncedLoopback(t *testing.T, n int) *loopback {
	t.Helper()
	l := startLoopback(t, fakeapiserver.Options{}, Options{})
	l.seed("cm", n)
	l.waitSynced()
	return l
}

// expireWatch cuts the reflector's watch and answers its next watch
// request 410 Gone, updates the ConfigMap name meanwhile, and waits until
// the store has caught up.
func (l *loopback) expireWatch(name string) {
	l.t.Helper()
	l.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: 410})
	require.Equal(l.t, 1, l.srv.CutWatches(configMaps, fakeapiserver.CutClean))
	l.update(name, "x")
	l.waitConverged()
}

func TestFaultConnectionCutMidFrame(t *testing.T) {
	l := syncedLoopback(t, 5)
	for i := range 3 {
		l.update("cm-1", fmt.Sprint(i))
		l.waitConverged()
		require.Equal(t, 1, l.srv.CutWatches(configMaps, fakeapiserver.CutMidFrame))
		l.update("cm-2", fmt.Sprint(i)) // while the reflector reconnects
		l.waitWatchers(1)
	}
	l.waitConverged()
	assert.Len(t, tracesOf[Replaced](l), 1, "a cut connection must not relist")
}

func TestFaultConnectionAbortedBetweenEvents(t *testing.T) {
	l := syncedLoopback(t, 3)
	require.Equal(t, 1, l.srv.CutWatches(configMaps, fakeapiserver.CutAbort))
	l.remove("cm-0")
	l.create("cm-9", "x")
	l.waitConverged()
	assert.Len(t, tracesOf[Replaced](l), 1, "a dropped connection must not relist")
}

func TestFaultServerRestart(t *testing.T) {
	l := syncedLoopback(t, 4)

	// A restart that keeps history: the watch resumes where it was.
	l.srv.Restart(false)
	l.update("cm-0", "a")
	l.waitConverged()
	assert.Len(t, tracesOf[Replaced](l), 1, "a restart with history must not relist")

	// A restart that compacts, while the reflector is behind: it was
	// disconnected (by a first restart, its reconnect held) when the last
	// write happened, so its resourceVersion is too old now and only a
	// relist can catch up.
	l.waitWatchers(1)
	l.srv.DelayNext(fakeapiserver.DelayRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Delay: 300 * time.Millisecond})
	l.srv.Restart(false)
	l.update("cm-1", "b")
	l.srv.Restart(true)
	l.waitConverged()
	l.waitTrace("a relist after the compacting restart", func() bool { return len(tracesOf[Replaced](l)) == 2 })
	l.update("cm-2", "c")
	l.waitConverged()
}

func TestFault410DuringWatch(t *testing.T) {
	l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true})
	l.seed("cm", 3)
	l.waitSynced()

	// The next watch request is answered 410 at once.
	l.expireWatch("cm-0")
	l.waitTrace("a consistent relist", func() bool { return l.lists("") == 1 })
	errs := l.errors()
	require.NotEmpty(t, errs)
	assert.Equal(t, ClassExpired, errs[len(errs)-1].Class)
}

func TestFaultCompactionWhileDisconnected(t *testing.T) {
	l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true})
	l.seed("cm", 3)
	l.waitSynced()

	// Hold the reconnect, change and compact meanwhile: the watch resumes
	// at a compacted resourceVersion and gets a 410 ERROR event.
	l.srv.DelayNext(fakeapiserver.DelayRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Delay: 300 * time.Millisecond})
	require.Equal(t, 1, l.srv.CutWatches(configMaps, fakeapiserver.CutAbort))
	l.update("cm-0", "a")
	l.remove("cm-1")
	l.create("cm-5", "b")
	l.srv.CompactNow()
	l.waitConverged()
	l.waitTrace("a consistent relist", func() bool { return l.lists("") == 1 })
	var expired bool
	for _, e := range l.errors() {
		expired = expired || e.Class == ClassExpired
	}
	assert.True(t, expired, "no 410 reported")
}

func TestFault410OnContinueToken(t *testing.T) {
	for _, inconsistent := range []bool{false, true} {
		t.Run(fmt.Sprintf("inconsistent=%v", inconsistent), func(t *testing.T) {
			l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true, PageSize: 2})
			l.seed("cm", 7)
			l.waitSynced()
			// A 410 on the watch makes the reflector relist at "", paged
			// by 2; the second page's token has expired.
			l.srv.ExpireNextContinue(configMaps, 1, inconsistent)
			l.expireWatch("cm-3")
			l.waitTrace("a full list after the expired token", func() bool { return len(tracesOf[ListRestarted](l)) == 1 })
			restart := tracesOf[ListRequested](l)
			last := restart[len(restart)-1]
			assert.Equal(t, ListOptions{}, last.Options, "the full list: no limit, no continue, a consistent read")
		})
	}
}

func TestFaultTooManyRequestsWithRetryAfter(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("plainText=%v", plain), func(t *testing.T) {
			l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true})
			l.seed("cm", 2)
			l.waitSynced()
			l.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: 429,
				RetryAfterSeconds: 1, PlainText: plain})
			require.Equal(t, 1, l.srv.CutWatches(configMaps, fakeapiserver.CutClean))
			l.update("cm-0", "x")
			l.waitConverged()
			var waited bool
			for _, e := range tracesOf[StateChanged](l) {
				if b, ok := e.To.(BackingOff); ok && Classify(b.Cause) == ClassThrottled {
					assert.Equal(t, time.Second, b.Delay, "Retry-After not honoured")
					waited = true
				}
			}
			assert.True(t, waited, "no wait for the 429")
			assert.Len(t, tracesOf[Replaced](l), 1, "a 429 must not relist")
		})
	}
}

func TestFaultServerErrorBursts(t *testing.T) {
	for _, code := range []int{500, 503} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			// A burst on the first list, then one on the watch.
			l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true}, func(l *loopback) {
				l.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "list", Resource: "configmaps"}, Code: code, Count: 3})
			})
			l.seed("cm", 3)
			l.waitSynced()
			l.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: code, Count: 4})
			require.Equal(t, 1, l.srv.CutWatches(configMaps, fakeapiserver.CutClean))
			l.update("cm-1", "x")
			l.waitConverged()
			var delays []time.Duration
			for _, e := range tracesOf[StateChanged](l) {
				if b, ok := e.To.(BackingOff); ok {
					delays = append(delays, b.Delay)
				}
			}
			require.GreaterOrEqual(t, len(delays), 7, "each failure waits")
			assert.Len(t, tracesOf[Replaced](l), 1, "5xx must not relist")
			for _, e := range l.errors() {
				// The cut itself ends a watch that has seen no event yet.
				if !errors.Is(e, ErrWatchClosedEarly) {
					assert.Equal(t, ClassTransient, e.Class, "%v", e)
				}
			}
		})
	}
}

func TestFaultWatchStalledUntilServerClosesIt(t *testing.T) {
	t.Run("slow watcher dropped", func(t *testing.T) {
		l := startLoopback(t, fakeapiserver.Options{WatchQueueLength: 3}, Options{})
		l.seed("cm", 2)
		l.waitSynced()
		require.Equal(t, 1, l.srv.StallWatches(configMaps))
		for i := range 10 {
			l.update("cm-0", fmt.Sprint(i))
		}
		l.waitConverged()
		assert.Len(t, tracesOf[Replaced](l), 1, "a dropped watch must not relist")
	})
	t.Run("idle until timeoutSeconds", func(t *testing.T) {
		l := startLoopback(t, fakeapiserver.Options{}, Options{MinWatchTimeout: time.Second, MaxWatchTimeout: time.Second})
		l.seed("cm", 2)
		l.waitSynced()
		l.waitTrace("the server ending the watch", func() bool { return len(tracesOf[WatchEnded](l)) >= 1 })
		l.update("cm-1", "late")
		l.waitConverged()
		assert.Len(t, tracesOf[Replaced](l), 1, "a watch timeout must not relist")
	})
}

func TestFaultMalformedFrame(t *testing.T) {
	l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true})
	l.seed("cm", 2)
	l.waitSynced()
	marker := `"name":"cm-0"`
	l.proxy.corruptAfter.Store(&marker)
	l.update("cm-0", "a") // its event is followed by garbage
	l.update("cm-1", "b")
	l.waitConverged()
	assert.Equal(t, int32(1), l.proxy.corrupted.Load())
	var syntaxErr *watch.SyntaxError
	var reported bool
	for _, e := range l.errors() {
		reported = reported || (e.Op == "watch" && e.Class == ClassTransient && errors.As(e, &syntaxErr))
	}
	assert.True(t, reported, "the malformed frame was not reported")
	assert.Len(t, tracesOf[Replaced](l), 1, "a malformed frame must not relist")
}

func TestFaultStreamingListAccepted(t *testing.T) {
	l := syncedLoopback(t, 5)
	l.update("cm-2", "x")
	l.waitConverged()
	assert.Zero(t, l.lists("*"), "a streaming list needs no LIST")
	assert.Empty(t, l.errors())
	bm := tracesOf[BookmarkReceived](l)
	require.NotEmpty(t, bm)
	assert.True(t, bm[0].InitialEventsEnd)
}

// fellBackToList seeds three ConfigMaps, lets the reflector sync and
// follow one update, checks that it listed once at resourceVersion 0 (the
// fallback from a streaming list) and returns the one error it reported.
func (l *loopback) fellBackToList() *Error {
	l.t.Helper()
	l.seed("cm", 3)
	l.waitSynced()
	l.update("cm-0", "x")
	l.waitConverged()
	assert.Equal(l.t, 1, l.lists("0"), "fallback to LIST at rv=0")
	return l.onlyError(l.t)
}

func TestFaultStreamingListRejected(t *testing.T) {
	l := startLoopback(t, fakeapiserver.Options{}, Options{}, func(l *loopback) {
		l.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Code: 422,
			Message: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"})
	})
	e := l.fellBackToList()
	assert.Equal(t, "streaming list", e.Op)
}

func TestFaultStreamingListNeverFinished(t *testing.T) {
	l := startLoopback(t, fakeapiserver.Options{}, Options{InitialEventsTimeout: 300 * time.Millisecond}, func(l *loopback) {
		l.proxy.dropInitialEnd.Store(true)
	})
	e := l.fellBackToList()
	assert.ErrorIs(t, e, ErrInitialEventsTimeout)
}

func TestFaultServerIgnoresLimit(t *testing.T) {
	l := startLoopback(t, fakeapiserver.Options{}, Options{DisableStreamingList: true, PageSize: 2}, func(l *loopback) {
		l.proxy.stripLimit.Store(true)
	})
	l.seed("cm", 9)
	l.waitSynced()
	// Force a consistent relist, the kind that is paged.
	l.expireWatch("cm-0")
	l.waitTrace("the consistent relist", func() bool { return len(tracesOf[Replaced](l)) == 2 })
	pages := tracesOf[ListPageReceived](l)
	last := pages[len(pages)-1]
	assert.Equal(t, ListPageReceived{Page: 1, Items: 9, ResourceVersion: last.ResourceVersion, Wire: rest.WireJSON}, last, "one page with everything")
}
