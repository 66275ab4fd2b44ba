// Package hostile is a test helper: an API server that attacks its client
// (it accepts requests and never answers, sends lists that never end,
// continue tokens that go round in circles, frames over any bound,
// Retry-After headers of a week) and a connection-load tool that attacks a
// server (connections opened by the hundred and left idle, requests whose
// headers or body never finish, HTTP/2 connections that send only the
// preface), with the measurements the tests assert bounds on: peak heap and
// peak resident memory of the process.
//
// It has no place in the flow of one event; it stands at either end of it,
// in tests only. It uses the standard library alone, so that the tests of
// every package (rest, reflector, fakeapiserver, internal/reliability) can
// import it.
//
// Where things are:
//
//	silent.go  Silent: a listener that accepts and never answers
//	attacks.go the hostile handlers (serve them with httptest, which
//	           listens on 127.0.0.1): EndlessList, ContinueCycle,
//	           LargeFrame, TooManyRequests
//	flood.go   Flood: idle, stalled-header, stalled-body and
//	           preface-only connections, counted as the server closes them
//	memory.go  HeapSampler (peak heap while an attack runs), PeakRSS and
//	           ResetPeakRSS (the kernel's high-water mark of the process)
package hostile
