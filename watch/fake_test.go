package watch

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestFakeWatcher(t *testing.T) {
	f := NewFake[string]()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Add("a")
		f.Modify("b")
		f.Bookmark("c")
		f.Delete("d")
		f.Error(meta.NewStatus(410, meta.ReasonExpired, "too old"))
	}()
	var got []Event[string]
	for range 5 {
		got = append(got, <-f.ResultChan())
	}
	<-done
	want := []EventType{Added, Modified, Bookmark, Deleted, Error}
	for i, ev := range got {
		assert.Equal(t, want[i], ev.Type, "event %d", i)
	}
	assert.Equal(t, "d", got[3].Object)
	require.NotNil(t, got[4].Status)
	assert.True(t, got[4].Status.IsGone())

	assert.False(t, f.IsStopped())
	f.Stop()
	f.Stop()
	assert.True(t, f.IsStopped())
	_, ok := <-f.ResultChan()
	assert.False(t, ok)
	assert.False(t, f.Action(Event[string]{Type: Added, Object: "late"}), "a send after Stop is dropped")
}

func TestFakeWatcherStopUnblocksSenders(t *testing.T) {
	f := NewFake[int]()
	var wg sync.WaitGroup
	sent := make(chan bool, 4)
	for i := range 4 {
		wg.Go(func() { sent <- f.Action(Event[int]{Type: Added, Object: i}) })
	}
	f.Stop()
	wg.Wait()
	close(sent)
	for ok := range sent {
		assert.False(t, ok, "nobody received, so no send succeeded")
	}
}
