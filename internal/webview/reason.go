package webview

import (
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// transitionReason says in a few words why the reflector moved from one
// state to the next, the way the page labels the arrow: "410 Expired",
// "watch timeout", "connection reset", "back-off 1.2s". end is the watch
// that ended just before, if any: a state change that leaves Watching
// carries no cause of its own when the server simply closed the stream.
func transitionReason(from, to reflector.State, end *reflector.WatchEnded) string {
	switch to := to.(type) {
	case reflector.Stopped:
		return "stopped"
	case reflector.BackingOff:
		return causeReason(to.Cause) + " · back-off " + roundDelay(to.Delay)
	case reflector.Listing:
		if to.Cause != nil {
			return causeReason(to.Cause) + " · relist"
		}
	case reflector.StreamingList:
		if to.Cause != nil {
			return causeReason(to.Cause) + " · relist"
		}
	case reflector.Watching:
		switch from := from.(type) {
		case reflector.BackingOff:
			return "back-off " + roundDelay(from.Delay) + " over · reconnect"
		case reflector.Listing:
			return "list complete · watch from rv=" + to.ResourceVersion
		case reflector.StreamingList:
			return "initial-events-end bookmark"
		case reflector.Watching:
			if end != nil && end.Err != nil {
				return causeReason(end.Err)
			}
			return "watch timeout · rewatch from rv=" + to.ResourceVersion
		}
	}
	if b, ok := from.(reflector.BackingOff); ok {
		return "back-off " + roundDelay(b.Delay) + " over"
	}
	return ""
}

// causeReason names an error the way an operator would: by its HTTP code
// and reason when the server sent a Status, else by what the network did.
func causeReason(err error) string {
	if err == nil {
		return ""
	}
	if st := statusOf(err); st != nil && st.Code != 0 {
		return strconv.Itoa(int(st.Code)) + " " + string(st.Reason)
	}
	var netErr net.Error
	switch {
	case errors.Is(err, reflector.ErrWatchClosedEarly):
		return "watch closed at once"
	case errors.Is(err, reflector.ErrInitialEventsTimeout), errors.Is(err, reflector.ErrNotStreaming):
		return "streaming list abandoned"
	case errors.Is(err, reflector.ErrInitialEventsIncomplete):
		return "streaming list cut"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection reset"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	}
	var stale *reflector.StaleError
	if errors.As(err, &stale) {
		return "stale list"
	}
	return reflector.Classify(err).String() + " error"
}

// statusOf finds the server's Status inside err.
func statusOf(err error) *meta.Status {
	var st *meta.Status
	if errors.As(err, &st) {
		return st
	}
	var se *rest.StatusError
	if errors.As(err, &se) {
		return &se.Status
	}
	return nil
}

// roundDelay prints a wait to the millisecond.
func roundDelay(d time.Duration) string { return d.Round(time.Millisecond).String() }
