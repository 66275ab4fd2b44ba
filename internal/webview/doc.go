// Package webview serves a live page of one informer's machinery, for
// learners and for debugging a controller's cache: the reflector's state
// machine with the current state lit and each transition animated with
// its reason ("410 Expired", "connection reset", "back-off 1.2s"), the
// resourceVersion timeline (the list, each event, bookmarks, relists),
// the store (a count and a filterable table, the changed object
// highlighted) and each handler registration (synced, backlog, lag). The
// demo adds buttons that inject the fake API server's faults and sliders
// for its workload.
//
// # Where it sits
//
//	reflector ──Options.Trace, Options.Applied──► Recorder (bounded rings, a mutex, no allocation per event)
//	informer  ──Indexer, Registrations──┐            │ sampled by each page, 10 times a second
//	                                    ▼            ▼
//	                      View ──Server-Sent Events──► the page (HTML, vanilla JS, CSS, embedded)
//
// The view costs nothing unless it is wired in. Wired in, each event costs
// a few stores under a mutex (through Options.Applied, which spares the
// reflector the allocation of a TraceEvent per event), and each connected
// page samples what is new ten times a second: a burst of events reaches
// the page as its newest points and a count of the rest. BenchmarkBurst
// measures what a burst of 10,000 events at full speed costs the informer
// with and without the view.
//
// The page is one HTML file, one script and one style sheet, written by
// hand and embedded: no framework, nothing fetched from elsewhere. Each
// panel links to the stop of docs/tour.md that explains the code behind
// it. Bound to loopback the view needs no token but answers only loopback
// Host names; bound elsewhere it needs one (auth.go).
//
// # Files
//
//	doc.go        this map
//	view.go       View, Options: New, Trace, Attach, Serve, URL
//	recorder.go   Recorder: the trace hook and its rings
//	reason.go     why a transition happened, in a few words
//	frame.go      Frame, what one event of the stream carries, and sampling
//	stream.go     the Server-Sent Events stream of one page
//	source.go     what the view reads from an informer
//	controls.go   Controls: fault buttons and sliders
//	handler.go    the HTTP routes, the page, the table, the control endpoints
//	auth.go       loopback Host check, token, control header
//	static/       index.html, app.js, style.css
package webview
