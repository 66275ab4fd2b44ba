// Package await is a test helper: the waits the package tests share, each
// of which fails the test after a bound instead of hanging it.
//
// Files:
//
//	receive.go  Receive, the next value of a channel within a time
//	buffer.go   Buffer, output written by goroutines that a test waits on
package await
