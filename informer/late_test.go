package informer_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/informer"
)

func TestLateHandlerSyncsAfterItsSnapshot(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.create("default", n, nil)
	}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	inf := e.informerFor("default", informer.Options[*ConfigMap]{Clock: clk})
	run(t, inf)
	waitSynced(t, inf)

	// Added after the informer synced, the handler first gets the three
	// cached objects as initial adds; it blocks in the first.
	release := make(chan struct{})
	blocked := make(chan struct{})
	var once sync.Once
	rec := newRecorder()
	rec.before = func(string) {
		once.Do(func() { close(blocked) })
		<-release
	}
	reg, err := inf.AddEventHandler(rec, informer.HandlerOptions{Name: "late"})
	require.NoError(t, err)
	<-blocked
	clk.Step(2 * time.Second)
	b := reg.Backlog()
	assert.Equal(t, 2, b.Queued, "two snapshot objects wait behind the one in progress")
	assert.Equal(t, 2*time.Second, b.Oldest, "waiting since the handler was added")
	assert.False(t, reg.HasSynced())
	assert.ErrorContains(t, reg.SyncError(), "handler still processing its initial events (2 queued)")

	close(release)
	waitSynced(t, reg)
	events := rec.waitLen(t, 3)
	for _, ev := range events {
		assert.True(t, strings.HasSuffix(ev, " initial"), ev)
	}
	assert.NoError(t, reg.SyncError())
	assert.Equal(t, "configmaps/late", reg.Name())
}

func TestObjectTheIndexerRefusesIsReported(t *testing.T) {
	e := newEnv(t)
	errs := newErrorLog()
	inf := e.informerFor("default", informer.Options[*ConfigMap]{
		OnError: errs.add,
		Indexers: cache.Indexers[*ConfigMap]{"by-color": func(cm *ConfigMap) ([]string, error) {
			if cm.Name == "bad" {
				return nil, errors.New("no color")
			}
			return []string{cm.Data["color"]}, nil
		}},
	})
	rec := newRecorder()
	_, err := inf.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)

	e.create("default", "bad", nil)
	e.create("default", "good", map[string]string{"color": "red"})
	rec.waitLen(t, 1)
	assert.True(t, strings.HasPrefix(rec.snapshot()[0], "add default/good"), "only the good object is delivered")
	err = errs.waitFor(t, "the refused object", func(err error) bool { return strings.Contains(err.Error(), "no color") })
	assert.Contains(t, err.Error(), "configmaps: store default/bad")
	red, err := inf.Indexer().ByIndex("by-color", "red")
	require.NoError(t, err)
	assert.Len(t, red, 1)
}
