package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingBody serves a stream from memory, at most maxRead bytes a Read,
// and counts the bytes read. Close makes later reads fail.
type countingBody struct {
	mu      sync.Mutex
	r       *bytes.Reader
	maxRead int
	read    int
	closed  bool
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errors.New("read on a closed body")
	}
	if len(p) > b.maxRead {
		p = p[:b.maxRead]
	}
	n, err := b.r.Read(p)
	b.read += n
	return n, err
}

func (b *countingBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return nil
}

func (b *countingBody) bytesRead() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.read
}

// numberedFrame is an ADDED frame of exactly size bytes whose object is
// {"n":n,"pad":"..."}.
func numberedFrame(n, size int) []byte {
	head := fmt.Sprintf(`{"type":"ADDED","object":{"n":%d,"pad":"`, n)
	const tail = `"}}` + "\n"
	return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
}

// decodeNumber returns the n of a numberedFrame's object.
func decodeNumber(b []byte) (int, error) {
	s, ok := bytes.CutPrefix(b, []byte(`{"n":`))
	if !ok {
		return 0, fmt.Errorf("not a numbered object: %.20q", b)
	}
	end := bytes.IndexByte(s, ',')
	if end < 0 {
		return 0, fmt.Errorf("not a numbered object: %.20q", b)
	}
	return strconv.Atoi(string(s[:end]))
}

// receiveInOrder receives count events and checks they are numbered
// first, first+1, ... in stream order.
func receiveInOrder(t *testing.T, w Interface[int], first, count int) {
	t.Helper()
	for i := range count {
		ev, ok := <-w.ResultChan()
		require.True(t, ok, "the channel closed after %d of %d events", i, count)
		require.Equal(t, Added, ev.Type, "event %d: %v", i, ev.Err)
		require.Equal(t, first+i, ev.Object, "event %d out of order", i)
	}
}

// While nobody receives, the watcher reads only as far as its buffers
// reach: decodedAhead events on the channel, one the decoder holds,
// readAheadFrames frames waiting and one the reader holds. Everything
// arrives in stream order once the consumer catches up.
func TestWatcherReadAheadIsBoundedByFrames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const frameSize, frames, maxRead = 1 << 10, 2000, 16 << 10
		var stream []byte
		for i := range frames {
			stream = append(stream, numberedFrame(i, frameSize)...)
		}
		body := &countingBody{r: bytes.NewReader(stream), maxRead: maxRead}
		w := NewStreamWatcher(context.Background(), body, decodeNumber, DecoderOptions{})
		defer w.Stop()

		synctest.Wait()
		held := decodedAhead + 1 + readAheadFrames + 1
		assert.LessOrEqual(t, body.bytesRead(), held*frameSize+maxRead,
			"read %d of %d frames with no consumer; the buffers hold %d", body.bytesRead()/frameSize, frames, held)
		assert.GreaterOrEqual(t, body.bytesRead(), held*frameSize, "the watcher did not read ahead as far as its buffers")

		receiveInOrder(t, w, 0, frames)
		_, ok := <-w.ResultChan()
		assert.False(t, ok, "the channel stays open after the stream ended")
		assert.True(t, body.closed)
	})
}

// Large frames are bounded by their bytes: with the decoder blocked, the
// frames waiting to be decoded hold at most readAheadBytes, besides the
// one the reader holds. A frame larger than the whole budget is still
// read, alone, and Stop ends a reader waiting for room.
func TestWatcherReadAheadIsBoundedByBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const small, large, maxRead = 1 << 10, 3 << 20, 64 << 10
		var stream []byte
		n := 0
		// Enough small frames to fill the result channel and the
		// decoder's hands, so that the large ones wait undecoded.
		for range decodedAhead + 1 {
			stream = append(stream, numberedFrame(n, small)...)
			n++
		}
		for range 6 {
			stream = append(stream, numberedFrame(n, large)...)
			n++
		}
		stream = append(stream, numberedFrame(n, readAheadBytes+large)...)
		n++
		stream = append(stream, numberedFrame(n, small)...)
		n++
		body := &countingBody{r: bytes.NewReader(stream), maxRead: maxRead}
		w := NewStreamWatcher(context.Background(), body, decodeNumber, DecoderOptions{})

		synctest.Wait()
		// The first large frame waits to be decoded, holding 3 MiB of
		// the 4 MiB budget; the reader holds the second, waiting for
		// room.
		limit := (decodedAhead+1)*small + 2*large + maxRead
		assert.LessOrEqual(t, body.bytesRead(), limit,
			"read %d bytes with no consumer; the budget allows %d", body.bytesRead(), limit)
		assert.Greater(t, body.bytesRead(), (decodedAhead+1)*small+large, "the watcher did not read the first large frames")

		receiveInOrder(t, w, 0, decodedAhead+1+3)
		synctest.Wait()
		// Stop while the reader waits for room in the budget.
		w.Stop()
		for range w.ResultChan() {
		}

		// The frame over the whole budget passes once the others are
		// decoded.
		body = &countingBody{r: bytes.NewReader(stream), maxRead: maxRead}
		w = NewStreamWatcher(context.Background(), body, decodeNumber, DecoderOptions{})
		receiveInOrder(t, w, 0, n)
		w.Stop()
	})
}

// readAhead's budget: a frame that fits is reserved at once, one that does
// not waits until release makes room, and one larger than the whole budget
// passes when nothing else is held.
func TestReadAheadBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newReadAhead()
		ctx := context.Background()
		stop := make(chan struct{})
		require.True(t, q.reserve(ctx, stop, readAheadBytes-10))
		first := make([]byte, readAheadBytes-10)

		reserved := make(chan bool, 1)
		go func() { reserved <- q.reserve(ctx, stop, 20) }()
		synctest.Wait()
		select {
		case <-reserved:
			t.Fatal("reserved 20 bytes with only 10 left")
		default:
		}
		q.release(first)
		assert.True(t, <-reserved)
		q.release(make([]byte, 20))

		assert.True(t, q.reserve(ctx, stop, 2*readAheadBytes), "a frame over the budget waits with nothing else held")
		go func() { reserved <- q.reserve(ctx, stop, 1) }()
		synctest.Wait()
		close(stop)
		assert.False(t, <-reserved, "stop ends a wait for room")
	})
}
