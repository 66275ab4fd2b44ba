package informer_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/rest"
)

// progressLog records a handler's OnBookmark and OnSynced calls, and the
// adds it saw before each.
type progressLog struct {
	mu      sync.Mutex
	calls   []string
	changed chan struct{}
}

func newProgressLog() *progressLog { return &progressLog{changed: make(chan struct{})} }

func (p *progressLog) record(s string) {
	p.mu.Lock()
	p.calls = append(p.calls, s)
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *progressLog) waitFor(t *testing.T, what string, cond func([]string) bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for {
		p.mu.Lock()
		calls, ch := append([]string(nil), p.calls...), p.changed
		p.mu.Unlock()
		if cond(calls) {
			return calls
		}
		select {
		case <-ch:
		case <-ctx.Done():
			require.FailNow(t, "timed out waiting for "+what, "calls: %q", calls)
		}
	}
}

func rvAtLeast(t *testing.T, have, want string) bool {
	h, err := strconv.ParseUint(have, 10, 64)
	require.NoError(t, err)
	w, err := strconv.ParseUint(want, 10, 64)
	require.NoError(t, err)
	return h >= w
}

func TestWaitForFreshnessReadsYourWrite(t *testing.T) {
	e := newEnv(t)
	inf := e.informerFor("default", informer.Options[*ConfigMap]{})
	before := time.Now()
	run(t, inf)
	waitSynced(t, inf)
	assert.False(t, inf.LastHeard().Before(before.Truncate(time.Second)), "the list was an answer")
	assert.NotEmpty(t, inf.StoreResourceVersion())

	for i := range 20 {
		cm := e.create("default", "cm-"+strconv.Itoa(i), map[string]string{"i": strconv.Itoa(i)})
		require.NoError(t, inf.WaitForFreshness(e.ctx, cm.ResourceVersion))
		got, err := inf.Lister().Get("default/" + cm.Name)
		require.NoError(t, err, "the write is in the cache once the wait returns")
		assert.Equal(t, cm.ResourceVersion, got.ResourceVersion)
		assert.True(t, rvAtLeast(t, inf.StoreResourceVersion(), cm.ResourceVersion))
	}
	assert.Error(t, inf.WaitForFreshness(e.ctx, "not-a-number"))
}

// TestWaitForFreshnessAcrossRelist writes while the informer cannot watch,
// then compacts the server's history: the watch cannot resume, the
// informer lists again, and the wait ends with the relist.
func TestWaitForFreshnessAcrossRelist(t *testing.T) {
	e := newEnv(t)
	errs := newErrorLog()
	inf := e.informerFor("default", informer.Options[*ConfigMap]{OnError: errs.add})
	synced := newProgressLog()
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{}, informer.HandlerOptions{
		OnSynced: func(rv string) { synced.record(rv) },
	})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf, reg)
	first := synced.waitFor(t, "the initial list", func(c []string) bool { return len(c) == 1 })
	require.NoError(t, e.srv.WaitForWatchers(e.ctx, "configmaps", 1))

	e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Count: 1 << 20, Code: 503})
	require.Equal(t, 1, e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort))
	errs.waitFor(t, "a refused watch", func(err error) bool { return rest.IsServiceUnavailable(err) })
	cm := e.create("default", "written", nil)

	// The informer cannot have seen the write: its watch is refused.
	expired, cancel := context.WithCancel(e.ctx)
	cancel()
	err = inf.WaitForFreshness(expired, cm.ResourceVersion)
	var stale *informer.StaleCacheError
	require.ErrorAs(t, err, &stale)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, cm.ResourceVersion, stale.Want)
	assert.Equal(t, first[0], stale.Have)

	waited := make(chan error, 1)
	go func() { waited <- inf.WaitForFreshness(e.ctx, cm.ResourceVersion) }()
	e.srv.CompactNow()
	e.srv.ClearFaults()
	require.NoError(t, <-waited)
	got, err := inf.Lister().Get("default/written")
	require.NoError(t, err)
	assert.Equal(t, cm.ResourceVersion, got.ResourceVersion)
	errs.waitFor(t, "the 410 that forced the relist", func(err error) bool { return rest.IsGone(err) })
	calls := synced.waitFor(t, "the relist", func(c []string) bool { return len(c) == 2 })
	assert.True(t, rvAtLeast(t, calls[1], cm.ResourceVersion), "the relist's resourceVersion %s covers the write %s", calls[1], cm.ResourceVersion)
}

func TestOnBookmarkComesAfterTheChangesItCovers(t *testing.T) {
	e := newEnvWith(t, fakeapiserver.Options{BookmarkInterval: 20 * time.Millisecond})

	inf := e.informerFor("default", informer.Options[*ConfigMap]{})
	log := newProgressLog()
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, _ bool) { log.record("add " + cm.ResourceVersion) },
	}, informer.HandlerOptions{OnBookmark: func(rv string) { log.record("bookmark " + rv) }})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf, reg)
	cm := e.create("default", "a", nil)
	calls := log.waitFor(t, "a bookmark past the write", func(c []string) bool {
		for _, s := range c {
			if rv, ok := strings.CutPrefix(s, "bookmark "); ok && rvAtLeast(t, rv, cm.ResourceVersion) {
				return true
			}
		}
		return false
	})
	added := false
	for _, s := range calls {
		if s == "add "+cm.ResourceVersion {
			added = true
		}
		if rv, ok := strings.CutPrefix(s, "bookmark "); ok && rvAtLeast(t, rv, cm.ResourceVersion) {
			assert.True(t, added, "the add comes before the bookmark that covers it: %q", calls)
			break
		}
	}
	assert.True(t, rvAtLeast(t, inf.StoreResourceVersion(), cm.ResourceVersion))
	assert.False(t, inf.LastHeard().IsZero())
}
