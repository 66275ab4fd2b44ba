package informer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

func TestWaitForCacheSyncSaysWhy(t *testing.T) {
	e := newEnv(t)
	e.srv.FailNext(fakeapiserver.FailRule{
		Match:   fakeapiserver.Match{Resource: "configmaps"},
		Count:   1 << 20,
		Code:    403,
		Message: `configmaps is forbidden: User "ci" cannot list resource "configmaps" in API group "" at the cluster scope`,
	})
	errs := newErrorLog()
	inf := e.informerFor("", informer.Options[*ConfigMap]{OnError: errs.add})
	run(t, inf)

	// Wait until the reflector has fallen back from the streaming list to
	// a plain LIST and that failed too, then give up waiting.
	errs.waitFor(t, "a failed list", func(err error) bool {
		var re *reflector.Error
		return errors.As(err, &re) && re.Op == "list"
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := informer.WaitForCacheSync(ctx, inf)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `caches not synced (context canceled): configmaps: list: 403 Forbidden: configmaps is forbidden: User "ci" cannot list`)
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, rest.IsForbidden(err), "the server's Status is in the chain")
	var ns *informer.NotSyncedError
	require.ErrorAs(t, err, &ns)
	require.Len(t, ns.Pending, 1)
	assert.Equal(t, "configmaps", ns.Pending[0].Name)
	assert.False(t, inf.HasSynced())

	// Once the server lets it through, the informer syncs and has no
	// error to report.
	e.srv.ClearFaults()
	waitSynced(t, inf)
	assert.NoError(t, inf.SyncError())
}

func TestWaitForCacheSyncBeforeAnyError(t *testing.T) {
	e := newEnv(t)
	inf := e.informerFor("", informer.Options[*ConfigMap]{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := informer.WaitForCacheSync(ctx, inf)
	assert.EqualError(t, err, "caches not synced (context canceled): configmaps: no error reported yet (still listing)")
	assert.Error(t, informer.WaitForCacheSync(context.Background(), nil))
}

// TestRelistAfterCompactionReportsUnknownFinalState cuts the informer off
// while an object is deleted and the server's history is compacted: the
// watch cannot resume (410), the informer lists again, and the handler
// learns of the deletion from the list, with the final state unknown.
func TestRelistAfterCompactionReportsUnknownFinalState(t *testing.T) {
	e := newEnv(t)
	a := e.create("default", "a", nil)
	b := e.create("default", "b", nil)
	errs := newErrorLog()
	inf := e.informerFor("default", informer.Options[*ConfigMap]{OnError: errs.add})
	rec := newRecorder()
	model := newModel()
	_, err := inf.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	_, err = inf.AddEventHandler(model, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)
	require.NoError(t, e.srv.WaitForWatchers(e.ctx, "configmaps", 1))

	// Refuse new watches, cut the open one, and wait for a refused retry.
	e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Count: 1 << 20, Code: 503})
	require.Equal(t, 1, e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort))
	errs.waitFor(t, "a refused watch", func(err error) bool { return rest.IsServiceUnavailable(err) })

	e.remove("default", "b")
	a2 := e.update(a, map[string]string{"k": "v"})
	e.srv.CompactNow()
	e.srv.ClearFaults()

	events := rec.waitLen(t, 4)
	assert.Equal(t, []string{
		"update default/a " + a.ResourceVersion + "->" + a2.ResourceVersion,
		"delete default/b " + b.ResourceVersion + " unknown",
	}, events[2:])
	errs.waitFor(t, "the 410 that forced the relist", func(err error) bool { return rest.IsGone(err) })
	model.WaitFor(t, "the model to see the relist", func(_ map[string]string, events int) bool { return events == 4 })
	objs, problems := model.State()
	assert.Empty(t, problems)
	assert.Equal(t, map[string]string{"default/a": a2.ResourceVersion}, objs)
}

func TestSkipUnchangedUpdatesDropsRelistNoise(t *testing.T) {
	for _, skip := range []bool{false, true} {
		t.Run(map[bool]string{false: "delivered", true: "skipped"}[skip], func(t *testing.T) {
			e := newEnv(t)
			a := e.create("default", "a", nil)
			errs := newErrorLog()
			inf := e.informerFor("default", informer.Options[*ConfigMap]{SkipUnchangedUpdates: skip, OnError: errs.add})
			rec := e.startRecorded(inf)

			// A cut watch that cannot resume (history compacted) forces a
			// relist that finds a unchanged and c new.
			e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Count: 1 << 20, Code: 503})
			e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort)
			errs.waitFor(t, "a refused watch", func(err error) bool { return rest.IsServiceUnavailable(err) })
			c := e.create("default", "c", nil)
			e.srv.CompactNow()
			e.srv.ClearFaults()
			errs.waitFor(t, "the 410", func(err error) bool { return rest.IsGone(err) })

			events := rec.waitFor(t, "add of c", func(ev []string) bool {
				return len(ev) > 0 && strings.HasPrefix(ev[len(ev)-1], "add default/c")
			})
			unchanged := "update default/a " + a.ResourceVersion + "->" + a.ResourceVersion
			if skip {
				assert.NotContains(t, events, unchanged)
			} else {
				assert.Contains(t, events, unchanged)
			}
			assert.Contains(t, events, "add default/c "+c.ResourceVersion)
		})
	}
}
