package webview

import (
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

func TestTransitionReason(t *testing.T) {
	expired := &meta.Status{Status: "Failure", Code: 410, Reason: meta.ReasonExpired, Message: "too old resource version"}
	throttled := &rest.StatusError{Status: meta.Status{Code: 429, Reason: meta.ReasonTooManyRequests}}
	reset := fmt.Errorf("watch stream: %w", io.ErrUnexpectedEOF)
	watching := reflector.Watching{ResourceVersion: "17"}
	for _, tc := range []struct {
		name     string
		from, to reflector.State
		end      *reflector.WatchEnded
		want     string
	}{
		{"list done", reflector.Listing{ResourceVersion: "0"}, watching, nil, "list complete · watch from rv=17"},
		{"streaming list done", reflector.StreamingList{Attempt: 1}, reflector.Watching{ResourceVersion: "17", Continued: true}, nil, "initial-events-end bookmark"},
		{"server timeout", watching, watching, &reflector.WatchEnded{ResourceVersion: "17"}, "watch timeout · rewatch from rv=17"},
		{"connection reset", watching, reflector.BackingOff{Delay: 812345 * time.Microsecond, Then: watching, Cause: reset}, nil, "connection reset · back-off 812ms"},
		{"connection refused", watching, reflector.BackingOff{Delay: time.Second, Then: watching, Cause: fmt.Errorf("dial: %w", syscall.ECONNREFUSED)}, nil, "connection refused · back-off 1s"},
		{"429", watching, reflector.BackingOff{Delay: 2 * time.Second, Then: watching, Cause: throttled}, nil, "429 TooManyRequests · back-off 2s"},
		{"410 relist", watching, reflector.Listing{Cause: fmt.Errorf("watch: %w", expired)}, nil, "410 Expired · relist"},
		{"410 streaming relist", watching, reflector.StreamingList{Attempt: 1, Cause: expired}, nil, "410 Expired · relist"},
		{"back-off over", reflector.BackingOff{Delay: 812 * time.Millisecond, Then: watching}, watching, nil, "back-off 812ms over · reconnect"},
		{"back-off over, relist", reflector.BackingOff{Delay: time.Second, Then: reflector.Listing{}}, reflector.Listing{}, nil, "back-off 1s over"},
		{"watch closed early", watching, reflector.BackingOff{Delay: time.Second, Then: watching, Cause: reflector.ErrWatchClosedEarly}, nil, "watch closed at once · back-off 1s"},
		{"stopped", watching, reflector.Stopped{}, nil, "stopped"},
	} {
		assert.Equal(t, tc.want, transitionReason(tc.from, tc.to, tc.end), tc.name)
	}
}

func TestIsRelist(t *testing.T) {
	w := reflector.Watching{ResourceVersion: "5"}
	assert.True(t, isRelist(w, reflector.Listing{Cause: io.EOF}))
	assert.True(t, isRelist(w, reflector.BackingOff{Then: reflector.StreamingList{Attempt: 1}}))
	assert.False(t, isRelist(w, reflector.BackingOff{Then: w}), "a reconnect is not a relist")
	assert.False(t, isRelist(reflector.Listing{}, reflector.BackingOff{Then: reflector.Listing{}}), "a retried list is not a relist")
	assert.False(t, isRelist(reflector.StreamingList{Attempt: 1}, reflector.Listing{Cause: io.EOF}), "falling back to pages is not a relist")
}
