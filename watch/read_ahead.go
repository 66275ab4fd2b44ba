package watch

import (
	"context"
	"sync"
)

// A watcher reads frames on one goroutine and decodes them on another, so
// that reading the next frame (socket reads, chunked decoding, the JSON
// framer's scan) overlaps decoding the last one, and on a second core the
// decoding overlaps what the consumer does with each event. Between the two
// goroutines frames wait, copied out of the reader's buffer, in order; how
// many and how many bytes is bounded so that a fast server cannot fill the
// client's memory while its consumer is slow.
const (
	// readAheadFrames bounds the frames read but not yet decoded: enough
	// to ride out a consumer's pause of a few events without stalling the
	// reader, few enough that the events in flight stay a small part of
	// what the consumer holds.
	readAheadFrames = 64
	// readAheadBytes bounds the bytes of those frames: 4 MiB, about a
	// thousand pods. A single frame larger than that (up to MaxFrameSize)
	// is still read, alone, once every earlier frame has been decoded.
	readAheadBytes = 4 << 20
	// decodedAhead bounds the decoded events waiting for the consumer on
	// the result channel. With an unbuffered channel the decoder and the
	// consumer hand over every event, each waking the other on another
	// core; a small buffer lets each run through a batch instead.
	decodedAhead = 64
	// keptFrameBuffer is the largest frame buffer kept for reuse once its
	// frame is decoded; larger ones (a rare large object) are left to the
	// garbage collector rather than held for the life of the watch.
	keptFrameBuffer = 64 << 10
)

// readFrame is what the reading goroutine hands the decoding one: a frame
// whose Object it owns, or the error that ended the stream.
type readFrame struct {
	f   Frame
	err error
}

// readAhead is the bounded queue between a watcher's two goroutines: a
// channel of frames, a budget of bytes, and the frame buffers the decoder
// gives back for the reader to fill again.
type readAhead struct {
	frames chan readFrame
	spare  chan []byte

	mu   sync.Mutex
	used int
	// freed wakes a reader waiting for budget; it holds at most one
	// wake-up, which is enough for the one reader.
	freed chan struct{}
}

func newReadAhead() *readAhead {
	return &readAhead{
		frames: make(chan readFrame, readAheadFrames),
		spare:  make(chan []byte, readAheadFrames+1),
		freed:  make(chan struct{}, 1),
	}
}

// reserve takes n bytes of the budget, waiting while the frames in flight
// hold too much of it. A frame larger than the whole budget is let through
// once nothing else is in flight. It reports false if stop or ctx ended
// the wait.
func (q *readAhead) reserve(ctx context.Context, stop <-chan struct{}, n int) bool {
	for {
		q.mu.Lock()
		if q.used == 0 || q.used+n <= readAheadBytes {
			q.used += n
			q.mu.Unlock()
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.freed:
		case <-stop:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// release gives back a decoded frame's bytes and its buffer.
func (q *readAhead) release(buf []byte) {
	q.mu.Lock()
	q.used -= len(buf)
	q.mu.Unlock()
	select {
	case q.freed <- struct{}{}:
	default:
	}
	if cap(buf) <= keptFrameBuffer {
		select {
		case q.spare <- buf[:0]:
		default:
		}
	}
}

// buffer returns an empty buffer to copy a frame into: a spare one if the
// decoder has given one back, else none (append allocates).
func (q *readAhead) buffer() []byte {
	select {
	case b := <-q.spare:
		return b
	default:
		return nil
	}
}
