package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// streamWatcher turns a watch response body into Events. Two goroutines,
// started by NewStreamWatcher and owned by the watcher, read frames and
// decode them into events; Stop and the context end both.
type streamWatcher[T any] struct {
	result chan Event[T]
	// stop is closed by Stop; done is closed when the goroutine has ended.
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	body      io.ReadCloser
	closeOnce sync.Once
}

// NewStreamWatcher starts reading the JSON watch stream body and returns the
// watch. Each frame's object is decoded with decode, which must not keep the
// slice it is given (it is reused for the next frame); encoding/json
// functions copy what they keep.
//
// Events are sent in stream order. Frames are read on one goroutine and
// decoded on another, and both work ahead of the consumer by a bounded
// amount: at most 64 decoded events wait on the channel, and at most 64
// frames and 4 MiB of them (or one larger frame alone) wait to be decoded,
// so a slow consumer holds the server back rather than filling memory. The
// buffering lets the reading, the decoding and the consumer run on
// different cores without waking each other for every event:
//
//   - ADDED, MODIFIED, DELETED and BOOKMARK carry decode's result in Object;
//   - ERROR carries the server's Status in Status (a 410 means list again);
//   - DecodeFailed carries Err. If Err is an *ObjectError (decode failed, the
//     ERROR object was not a Status, or the type was unknown) the stream goes
//     on. Otherwise the stream has ended and the channel closes next: Err
//     wraps ErrTransport when reading the body failed, io.ErrUnexpectedEOF
//     when the body ended inside a frame, and is a *SyntaxError or wraps
//     ErrFrameTooLarge when the bytes were not a watch stream.
//
// When the body ends cleanly between frames the channel closes with no
// event. When ctx is cancelled or Stop is called the channel closes too,
// without an event, whatever was pending. Either way body is closed, and
// once the channel is closed the goroutines have ended or are about to.
func NewStreamWatcher[T any](ctx context.Context, body io.ReadCloser, decode func([]byte) (T, error), opts DecoderOptions) Interface[T] {
	var frames FrameReader
	if body != nil {
		frames = NewDecoder(body, opts)
	}
	return newWatcher(ctx, body, frames, decode)
}

// newWatcher is NewStreamWatcher and NewFrameWatcher: the watcher reading
// frames off body.
func newWatcher[T any](ctx context.Context, body io.ReadCloser, frames FrameReader, decode func([]byte) (T, error)) Interface[T] {
	w := &streamWatcher[T]{
		result: make(chan Event[T], decodedAhead),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		body:   body,
	}
	// Cancelling ctx closes the body, which unblocks a pending Read.
	afterDone := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		defer close(afterDone)
		w.closeBody()
	})
	if body == nil || frames == nil || decode == nil {
		// Nothing to read: report the mistake as the watch's only event.
		err := errors.New("watch: NewStreamWatcher needs a body and a decode function")
		go func() {
			defer close(w.done)
			defer stopAfterWait(stopAfter, afterDone)
			defer close(w.result)
			if body != nil {
				defer w.closeBody()
			}
			w.send(ctx, Event[T]{Type: DecodeFailed, Err: err})
		}()
		return w
	}
	go func() {
		defer close(w.done)
		defer stopAfterWait(stopAfter, afterDone)
		w.run(ctx, frames, decode)
	}()
	return w
}

// ResultChan returns the channel events arrive on. It is closed exactly
// once, when the watch ends.
func (w *streamWatcher[T]) ResultChan() <-chan Event[T] { return w.result }

// Stop ends the watch: it closes the body (unblocking a pending read),
// waits until the reading goroutine has ended and the result channel is
// closed, and drops the events decoded ahead that nobody received, so
// that a receive after Stop finds the channel closed. It is idempotent
// and safe to call from any goroutine, including the one receiving
// events.
func (w *streamWatcher[T]) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	w.closeBody()
	<-w.done
	for range w.result {
	}
}

// closeBody closes the body once.
func (w *streamWatcher[T]) closeBody() {
	w.closeOnce.Do(func() {
		if w.body != nil {
			_ = w.body.Close()
		}
	})
}

// stopAfterWait deregisters a context.AfterFunc, or waits for it (done is
// closed when it returns) if it has started, so that no goroutine of the
// watcher outlives it.
func stopAfterWait(stop func() bool, done <-chan struct{}) {
	if !stop() {
		<-done
	}
}

// run reads frames and sends events until the stream ends, ctx is
// cancelled or Stop is called: frames are read on a goroutine of its own
// (see readAhead) and decoded here, in order.
func (w *streamWatcher[T]) run(ctx context.Context, dec FrameReader, decode func([]byte) (T, error)) {
	defer close(w.result)
	q := newReadAhead()
	var wg sync.WaitGroup
	wg.Go(func() { w.read(ctx, dec, q) })
	// Closing the body ends a pending read; Stop and ctx end the reader's
	// waits. Both happen before the result channel closes.
	defer wg.Wait()
	defer w.closeBody()
	for rf := range q.frames {
		if rf.err != nil {
			w.send(ctx, Event[T]{Type: DecodeFailed, Err: rf.err})
			return
		}
		ev := toEvent(rf.f, decode)
		q.release(rf.f.Object)
		if !w.send(ctx, ev) {
			return
		}
	}
}

// read copies each frame out of dec's buffer into q until the stream
// ends, ctx is cancelled or Stop is called; a failed read is handed over
// as the stream's last item. It closes q.frames when it returns.
func (w *streamWatcher[T]) read(ctx context.Context, dec FrameReader, q *readAhead) {
	defer close(q.frames)
	for {
		f, err := dec.Next()
		if err != nil {
			if errors.Is(err, io.EOF) || w.stopping(ctx) {
				// A clean end, or the read failed because we closed
				// the body.
				return
			}
			select {
			case q.frames <- readFrame{err: err}:
			case <-w.stop:
			case <-ctx.Done():
			}
			return
		}
		if !q.reserve(ctx, w.stop, len(f.Object)) {
			return
		}
		f.Object = append(q.buffer(), f.Object...)
		select {
		case q.frames <- readFrame{f: f}:
		case <-w.stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// stopping reports whether Stop was called or ctx is done.
func (w *streamWatcher[T]) stopping(ctx context.Context) bool {
	select {
	case <-w.stop:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// send delivers ev unless the watch is being stopped first. It reports
// whether ev was delivered.
func (w *streamWatcher[T]) send(ctx context.Context, ev Event[T]) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// toEvent turns a frame into an Event, decoding its object.
func toEvent[T any](f Frame, decode func([]byte) (T, error)) Event[T] {
	switch f.Type {
	case Added, Modified, Deleted, Bookmark:
		obj, err := decode(f.Object)
		if err != nil {
			return Event[T]{Type: DecodeFailed, Err: &ObjectError{Type: f.Type, Offset: f.Offset, Err: err}}
		}
		return Event[T]{Type: f.Type, Object: obj}
	case Error:
		st := new(meta.Status)
		if err := json.Unmarshal(f.Object, st); err != nil {
			return Event[T]{Type: DecodeFailed, Err: &ObjectError{Type: f.Type, Offset: f.Offset,
				Err: fmt.Errorf("decode Status: %w", err)}}
		}
		return Event[T]{Type: Error, Status: st}
	default:
		return Event[T]{Type: DecodeFailed, Err: &ObjectError{Type: f.Type, Offset: f.Offset,
			Err: fmt.Errorf("%w %q", ErrUnknownEventType, string(f.Type))}}
	}
}
