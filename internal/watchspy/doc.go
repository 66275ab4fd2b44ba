// Package watchspy is a test helper: a reverse proxy in front of an API
// server that reports, for every watch request passing through, the
// Upgrade header it carried ("websocket" for a watch over a websocket, ""
// for one over chunked HTTP). Tests of the watch transport choice use it
// to see which transport a client really used.
//
// Files:
//
//	watchspy.go  Spy and New
package watchspy
