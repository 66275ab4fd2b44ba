package storage

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRewriteReachesRetainedVersions: a rewrite changes how the objects
// read now and at every retained resourceVersion, with no new
// resourceVersion.
func TestRewriteReachesRetainedVersions(t *testing.T) {
	s := New(time.Now, 100)
	a, err := put(t, s, "a", 1)
	require.NoError(t, err)
	_, err = put(t, s, "b", 1)
	require.NoError(t, err)
	rv := s.ResourceVersion()
	n := s.Rewrite("configmaps", func(o *Object) *Object {
		return o.WithRest(nil)
	})
	assert.Equal(t, 2, n)
	assert.Equal(t, rv, s.ResourceVersion(), "no new resourceVersion")
	for _, at := range []int64{a.RV, rv} {
		m, err := s.At("configmaps", at)
		require.NoError(t, err)
		m.Ascend("", func(key string, o *Object) bool {
			assert.NotContains(t, string(o.Body), `"data"`, "%s at %d", key, at)
			return true
		})
	}
	assert.Equal(t, 0, s.Rewrite("configmaps", func(o *Object) *Object { return o }), "nothing left to change")
}

// TestResetWatchesEndsAndFloorsWatches: a reset ends the table's open
// watches with its own reason, leaves other tables' be, and refuses a
// watch from before its resourceVersion as compacted.
func TestResetWatchesEndsAndFloorsWatches(t *testing.T) {
	s := New(time.Now, 100)
	first, err := put(t, s, "a", 1)
	require.NoError(t, err)
	reg, err := s.Register("configmaps", WatchStart{From: first.RV}, 10, WatchInfo{})
	require.NoError(t, err)
	other, err := s.Register("secrets", WatchStart{From: first.RV}, 10, WatchInfo{})
	require.NoError(t, err)
	defer s.Unregister(other.Watcher)
	second, err := put(t, s, "a", 2)
	require.NoError(t, err)

	s.ResetWatches("configmaps", second.RV)
	select {
	case <-reg.Watcher.Done:
	default:
		t.Fatal("the open watch was not stopped")
	}
	assert.Equal(t, StopStorageReset, reg.Watcher.Reason())
	assert.True(t, strings.Contains(reg.Watcher.Reason().String(), "reset"))
	select {
	case <-other.Watcher.Done:
		t.Fatal("another table's watch was stopped")
	default:
	}

	_, err = s.Register("configmaps", WatchStart{From: first.RV}, 10, WatchInfo{})
	assert.ErrorIs(t, err, ErrCompacted)
	assert.Equal(t, second.RV, s.OldestWatchRV("configmaps"))
	assert.Equal(t, s.CompactedRV(), s.OldestWatchRV("secrets"))
	again, err := s.Register("configmaps", WatchStart{From: second.RV}, 10, WatchInfo{})
	require.NoError(t, err)
	s.Unregister(again.Watcher)
}
