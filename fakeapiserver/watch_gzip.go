package fakeapiserver

import (
	"compress/gzip"
	"io"
	"sync"
)

// A streaming list (a watch with sendInitialEvents=true and bookmarks)
// is gzip-encoded for a client that accepts gzip, as the real server does
// with WatchListCompression (on by default since 1.37): each flush ends a
// complete gzip member, so the client decodes every event as it arrives
// from a stream of concatenated members. Other watches are not encoded.

// watchGzipPool keeps gzip writers between flushes and watches. They
// compress at level 1 (gzip.BestSpeed), the real server's level: the least
// CPU for a ratio close to the default's.
var watchGzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

// flushGzip writes gzip members to w: one opens at the first write after
// a flush and closes at the next flush.
type flushGzip struct {
	w  io.Writer
	gz *gzip.Writer
}

func (f *flushGzip) Write(p []byte) (int, error) {
	if f.gz == nil {
		f.gz = watchGzipPool.Get().(*gzip.Writer)
		f.gz.Reset(f.w)
	}
	return f.gz.Write(p)
}

// endMember closes the open member (if any) and returns its writer to
// the pool, so an idle watch holds no compressor. The data is flushed
// before the member is closed, so that it arrives in a block of its own
// ahead of the empty final one: a reader of concatenated members gets it
// before it blocks on the next member's header.
func (f *flushGzip) endMember() error {
	if f.gz == nil {
		return nil
	}
	if err := f.gz.Flush(); err != nil {
		return err
	}
	err := f.gz.Close()
	f.gz.Reset(nil)
	watchGzipPool.Put(f.gz)
	f.gz = nil
	return err
}
