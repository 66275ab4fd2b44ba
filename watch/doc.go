// Package watch is the event model of kubecache and the decoder that turns
// a watch response into events.
//
// # Where it sits
//
//	API server ──HTTP chunked / websocket──► rest (Request.Watch)
//	    ──► watch: bytes → Frame{Type, Object} → Event[T]   ◄── this package
//	    ──► reflector ──► cache ──► informer ──► your controller
//
// The rest package opens the connection and hands its body to
// NewStreamWatcher; the reflector reads the resulting Interface[T]. The fake
// API server takes only the event types from here (EventType, Added,
// Modified…); it fans its changes out to watchers on its own, in
// fakeapiserver/internal/storage.
//
// # Decoding is two-phase
//
// The Decoder frames the byte stream and reads each envelope
// {"type": ..., "object": ...} in one pass, keeping the object as raw bytes.
// The StreamWatcher then decodes the object into T (or, for ERROR, into a
// meta.Status). So one undecodable object costs one DecodeFailed event, not
// the watch; a broken stream ends it. errors.go lists how each ending is told
// apart.
//
// # Files
//
//   - event.go: EventType, Event[T] and Interface[T], the contract every
//     watch implements.
//   - decoder.go: Decoder, Frame and DecoderOptions: the streaming framer
//     and envelope reader, and its buffer (how it reads, grows, shrinks).
//   - errors.go: SyntaxError, ObjectError and the sentinels (ErrTransport,
//     ErrFrameTooLarge, ErrUnknownEventType) that classify how a watch ended.
//   - stream_watcher.go: NewStreamWatcher, an Interface[T] over a response
//     body, with two owned goroutines: one reads frames, one decodes them.
//   - read_ahead.go: the bounded queue of frames between the two, and why
//     it is bounded as it is.
//   - frame_watcher.go: FrameReader and NewFrameWatcher, the watcher over
//     another framing (rest's protobuf watch streams).
//   - fake.go: FakeWatcher, an Interface[T] driven by tests.
//
// The fast path, the hand-tuned form of what encoding/json's Decoder would
// do, with its reason and its benchmark at the top of the file (a first
// reading can skip it):
//
//   - fast_scan.go: the envelope scanner behind Decoder.Next, one method per
//     state of the envelope's grammar.
package watch
