// Package faults is the fake API server's fault model: the rules that make
// it misbehave on purpose, the ways real servers and networks do. An
// Injector holds the request faults (fail the next matching requests with
// a real server's Status or plain-text 429, delay them on the server's
// clock, expire continue tokens, serve stale resourceVersion=0 lists);
// Selects and StopReason say which open watches a watch fault (cut,
// corrupt, stall) hits and how they end.
//
// It sits above storage, registry, request and apistatus. The root package
// applies the Injector to every request before routing it, and its public
// Server methods (FailNext, CutWatches, Restart, ...) and the
// /kubecache-admin/ endpoints are thin layers over this package.
//
// # Files
//
//   - faults.go: FailRule, DelayRule, CutMode, ContinueFault, Injector
//     and its Apply, Status (the Status a real server sends with a code).
package faults
