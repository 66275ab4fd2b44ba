package fakeapiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lone event is never held; after a flush of several events, the next
// flush waits for the rest of the interval, and the timer ends the hold.
func TestFlushPacer(t *testing.T) {
	var p flushPacer
	defer p.stop()
	now := time.Now()
	assert.False(t, p.hold(now), "an idle watch flushes at once")
	assert.Nil(t, p.c())

	p.flushed(now, 1)
	assert.False(t, p.hold(now.Add(time.Millisecond)), "after a flush of one event, the next one is not held")

	p.flushed(now, 3)
	assert.True(t, p.hold(now.Add(time.Millisecond)), "after a burst, a flush within the interval is held")
	assert.False(t, p.hold(now.Add(watchFlushInterval)), "not once the interval has passed")

	p.arm(time.Now())
	c := p.c()
	require.NotNil(t, c)
	p.arm(time.Now())
	assert.Equal(t, c, p.c(), "arming twice keeps one timer")
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatal("the hold never ended")
	}
	p.flushed(time.Now(), 2)
	assert.Nil(t, p.c(), "a flush disarms")
}
