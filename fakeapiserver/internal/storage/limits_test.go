package storage

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// put commits a ConfigMap named name whose data holds size bytes.
func put(t *testing.T, s *Store, name string, size int) (*Object, error) {
	t.Helper()
	expect := s.Get("configmaps", ObjectKey("default", name))
	typ := watch.Added
	if expect != nil {
		typ = watch.Modified
	}
	return s.Commit("configmaps", ObjectKey("default", name), typ, expect, func(rv int64) (*Object, error) {
		m := &meta.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: strconv.FormatInt(rv, 10)}
		return Assemble("ConfigMap", "v1", m, []byte(`,"data":{"k":"`+strings.Repeat("x", size)+`"}`), nil)
	})
}

// The history is bounded in bytes as well as in changes: writes of 100
// KiB against a 1 MiB bound keep about ten of them, the older ones are
// compacted (a read there is ErrCompacted), and the newest is always kept.
func TestHistoryIsBoundedInBytes(t *testing.T) {
	s := New(time.Now, 10000)
	s.SetHistoryBytes(1 << 20)
	var first int64
	for i := range 50 {
		obj, err := put(t, s, "cm", 100<<10)
		require.NoError(t, err)
		if i == 0 {
			first = obj.RV
		}
		assert.LessOrEqual(t, s.HistoryBytes(), int64(1<<20), "after write %d", i)
	}
	changes, _ := s.HistoryLen("configmaps")
	assert.InDelta(t, 10, changes, 1, "changes kept")
	_, err := s.At("configmaps", first)
	assert.ErrorIs(t, err, ErrCompacted)
	_, err = s.At("configmaps", s.ResourceVersion())
	assert.NoError(t, err)

	// One change larger than the whole bound is still kept, alone.
	s.SetHistoryBytes(10 << 10)
	changes, _ = s.HistoryLen("configmaps")
	assert.Equal(t, 1, changes)
	assert.Equal(t, int64(DefaultHistoryBytes), int64(256<<20))
}

// An object larger than MaxObjectBytes is refused with etcd's answer, and
// nothing is stored.
func TestObjectsOverTheEtcdLimitAreRefused(t *testing.T) {
	s := New(time.Now, 10000)
	_, err := put(t, s, "big", MaxObjectBytes)
	var st *meta.Status
	require.ErrorAs(t, err, &st)
	assert.EqualValues(t, 500, st.Code)
	assert.Equal(t, "etcdserver: request is too large", st.Message)
	assert.Nil(t, s.Get("configmaps", "default/big"))
	_, err = put(t, s, "fits", 2<<20)
	assert.NoError(t, err)
}
