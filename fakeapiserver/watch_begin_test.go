package fakeapiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A watch's status and headers go out only once its watcher is registered
// with the store, as on the real server: a client that has them knows its
// next write arrives as an event after the initial ones, not inside them.
func TestWatchAnswersOnceRegistered(t *testing.T) {
	s, c := newTestServer(t, Options{})
	c.mustCreate(cmPath, `{"metadata":{"name":"a"}}`)
	for i := range 20 {
		w := c.watch(cmPath + "?watch=1&allowWatchBookmarks=true")
		require.Equal(t, i+1, s.Watchers("configmaps"), "watch %d answered before it was registered", i)
		name := "b" + string(rune('a'+i))
		c.mustCreate(cmPath, `{"metadata":{"name":"`+name+`"}}`)
		var seq []string
		for {
			e := w.next()
			if e.Type == "BOOKMARK" {
				break
			}
			seq = append(seq, e.meta(t).Name)
		}
		assert.NotContains(t, seq, name, "a write made after the answer was among the initial events")
		e := w.next()
		assert.Equal(t, "ADDED", e.Type)
		assert.Equal(t, name, e.meta(t).Name)
	}
}
