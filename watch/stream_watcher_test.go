package watch

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// testObj is a small object for watcher tests.
type testObj struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// decodeTestObj decodes a testObj.
func decodeTestObj(b []byte) (*testObj, error) {
	o := new(testObj)
	if err := json.Unmarshal(b, o); err != nil {
		return nil, err
	}
	return o, nil
}

// collect receives every event until the channel closes.
func collect[T any](w Interface[T]) []Event[T] {
	var out []Event[T]
	for ev := range w.ResultChan() {
		out = append(out, ev)
	}
	return out
}

// nopCloser wraps a reader as a body whose Close records that it was called.
type nopCloser struct {
	io.Reader
	mu     sync.Mutex
	closed bool
}

func (c *nopCloser) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

func (c *nopCloser) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func TestStreamWatcherEvents(t *testing.T) {
	stream := `{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}}
{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"2"},"data":{"k":"v"}}}
{"type":"MODIFIED","object":{"metadata":{"name":7}}}
{"type":"SURPRISE","object":{}}
{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"3","annotations":{"k8s.io/initial-events-end":"true"}}}}
{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"4"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (4)","reason":"Expired","code":410}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided watch is too old.","reason":"Gone","code":410}}
`
	body := &nopCloser{Reader: strings.NewReader(stream)}
	w := NewStreamWatcher(context.Background(), body, decodeTestObj, DecoderOptions{})
	evs := collect(w)
	w.Stop()
	assert.True(t, body.isClosed(), "body closed at the end")
	require.Len(t, evs, 8)

	assert.Equal(t, Added, evs[0].Type)
	assert.Equal(t, "a", evs[0].Object.Name)
	assert.Equal(t, "ConfigMap", evs[0].Object.Kind)
	assert.Equal(t, Modified, evs[1].Type)
	assert.Equal(t, "v", evs[1].Object.Data["k"])

	var oe *ObjectError
	assert.Equal(t, DecodeFailed, evs[2].Type)
	require.ErrorAs(t, evs[2].Err, &oe)
	assert.Equal(t, Modified, oe.Type)
	assert.Equal(t, int64(strings.Index(stream, `{"type":"MODIFIED","object":{"metadata":{"name":7`)), oe.Offset)
	assert.Contains(t, evs[2].Err.Error(), "decode MODIFIED event at byte")

	assert.Equal(t, DecodeFailed, evs[3].Type)
	assert.ErrorIs(t, evs[3].Err, ErrUnknownEventType)
	assert.Contains(t, evs[3].Err.Error(), "SURPRISE")

	assert.Equal(t, Bookmark, evs[4].Type)
	assert.Equal(t, "3", evs[4].Object.ResourceVersion)
	assert.Equal(t, "true", evs[4].Object.Annotations[InitialEventsEndAnnotation])
	assert.Equal(t, Deleted, evs[5].Type)

	for _, ev := range evs[6:] {
		assert.Equal(t, Error, ev.Type)
		require.NotNil(t, ev.Status)
		assert.True(t, ev.Status.IsGone())
		assert.Equal(t, int32(410), ev.Status.Code)
	}
	assert.Equal(t, meta.ReasonExpired, evs[6].Status.Reason)
	assert.Equal(t, "too old resource version: 1 (4)", evs[6].Status.Message)
	assert.Equal(t, meta.ReasonGone, evs[7].Status.Reason)
	assert.Equal(t, "The resourceVersion for the provided watch is too old.", evs[7].Status.Message)
}

func TestStreamWatcherEnds(t *testing.T) {
	ok := `{"type":"ADDED","object":{"metadata":{"name":"a"}}}` + "\n"
	reset := errors.New("connection reset by peer")
	for _, tc := range []struct {
		name  string
		body  io.Reader
		check func(t *testing.T, err error)
	}{
		{"clean end", strings.NewReader(ok), nil},
		{"mid-frame EOF", strings.NewReader(ok + ok[:10]), func(t *testing.T, err error) {
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.NotErrorIs(t, err, ErrTransport)
		}},
		{"transport error", io.MultiReader(strings.NewReader(ok+ok[:10]), iotest.ErrReader(reset)), func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrTransport)
			assert.ErrorIs(t, err, reset)
		}},
		{"malformed", strings.NewReader(ok + "<html>" + ok), func(t *testing.T, err error) {
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, int64(len(ok)), se.Offset)
		}},
		{"too large", strings.NewReader(ok + `{"type":"ADDED","object":{"a":"` + strings.Repeat("x", 200) + `"}}`), func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrFrameTooLarge)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &nopCloser{Reader: tc.body}
			w := NewStreamWatcher(context.Background(), body, decodeTestObj, DecoderOptions{MaxFrameSize: 128})
			evs := collect(w)
			require.NotEmpty(t, evs)
			assert.Equal(t, Added, evs[0].Type)
			if tc.check == nil {
				assert.Len(t, evs, 1)
			} else {
				require.Len(t, evs, 2)
				assert.Equal(t, DecodeFailed, evs[1].Type)
				var oe *ObjectError
				assert.False(t, errors.As(evs[1].Err, &oe), "a stream-ending error is not an ObjectError")
				tc.check(t, evs[1].Err)
			}
			w.Stop()
			assert.True(t, body.isClosed())
		})
	}
}

func TestStreamWatcherStopDuringBlockedRead(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewStreamWatcher(context.Background(), pr, decodeTestObj, DecoderOptions{})
	go func() {
		// Half a frame, then nothing: the watcher is blocked in Read.
		_, _ = pw.Write([]byte(`{"type":"ADDED","object":{"metadata":{"name":"a"}}}{"type":"ADD`))
	}()
	ev, ok := <-w.ResultChan()
	require.True(t, ok)
	assert.Equal(t, "a", ev.Object.Name)
	w.Stop()
	_, ok = <-w.ResultChan()
	assert.False(t, ok, "channel closed after Stop")
	// Stop closed the read side, so the writer fails.
	_, err := pw.Write([]byte("x"))
	assert.ErrorIs(t, err, io.ErrClosedPipe)
}

func TestStreamWatcherStopWhileSending(t *testing.T) {
	// Nobody receives: the goroutine is blocked sending; Stop must still
	// end it.
	body := &nopCloser{Reader: strings.NewReader(`{"type":"ADDED","object":{}}`)}
	w := NewStreamWatcher(context.Background(), body, decodeTestObj, DecoderOptions{})
	w.Stop()
	_, ok := <-w.ResultChan()
	assert.False(t, ok)
	assert.True(t, body.isClosed())
}

func TestStreamWatcherContextCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	w := NewStreamWatcher(ctx, pr, decodeTestObj, DecoderOptions{})
	cancel()
	evs := collect(w)
	assert.Empty(t, evs, "a cancelled watch ends without an error event")
	w.Stop()

	// Already cancelled before the watch starts.
	body := &nopCloser{Reader: strings.NewReader(`{"type":"ADDED","object":{}}`)}
	w = NewStreamWatcher(ctx, body, decodeTestObj, DecoderOptions{})
	for range w.ResultChan() {
		// At most the one event may slip through before the
		// cancellation is seen; the channel must close.
	}
	w.Stop()
}

func TestStreamWatcherConcurrentStop(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	w := NewStreamWatcher(context.Background(), pr, decodeTestObj, DecoderOptions{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(w.Stop)
	}
	// A receiver running at the same time sees the channel close (a
	// second close would panic).
	for range w.ResultChan() {
	}
	wg.Wait()
	w.Stop()
	_, ok := <-w.ResultChan()
	assert.False(t, ok)
}

func TestStreamWatcherBadArguments(t *testing.T) {
	w := NewStreamWatcher[*testObj](context.Background(), nil, decodeTestObj, DecoderOptions{})
	evs := collect(w)
	w.Stop()
	require.Len(t, evs, 1)
	assert.Equal(t, DecodeFailed, evs[0].Type)
	assert.ErrorContains(t, evs[0].Err, "needs a body")

	body := &nopCloser{Reader: strings.NewReader(`{"type":"ADDED","object":{}}`)}
	w = NewStreamWatcher[*testObj](context.Background(), body, nil, DecoderOptions{})
	evs = collect(w)
	w.Stop()
	require.Len(t, evs, 1)
	assert.ErrorContains(t, evs[0].Err, "decode function")
	assert.True(t, body.isClosed())
}
