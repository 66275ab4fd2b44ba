// Package reliability holds kubecache's cross-cutting reliability and
// security tests: the fault matrix, the chaos test, the table of bad inputs
// the fake API server must refuse, the security checks and the leak test.
// It has no place in the flow of one event (socket → rest → watch →
// reflector → cache → informer → controller): it drives the whole flow from
// outside, against the bundled fake API server over loopback, and checks
// the property behind every fault — after it, every view a client has
// converges to exactly what a fresh list from the server holds, and no
// object's resourceVersion ever goes backwards in any of them.
//
// The package itself is a few small helpers the tests share; everything
// else is in its _test.go files. docs/reliability.md holds the results and
// the commands that produce them.
//
// # Where things are
//
//   - monitor.go: Monitor, which records every resourceVersion a client
//     shows and every one that goes backwards; Snapshot and its Diff;
//     CompareResourceVersions.
//   - store.go: CheckedStore, a cache.Indexer that shows every write to a
//     Monitor (what a bare reflector writes into).
//   - handler.go: ModelHandler, an informer handler that rebuilds the
//     informer's contents from notifications alone.
//   - proxy.go: FaultProxy, a reverse proxy for the faults a server cannot
//     make in its own responses (resets, cut frames, garbage, oversized and
//     silent streams, stale lists, held reconnects).
//   - table.go: Table, the Markdown tables the tests print.
//
// The tests:
//
//   - harness_test.go: the fake server, the proxy, clients on a fake clock,
//     the convergence check.
//   - matrix_test.go: the fault matrix (TestFaultMatrix).
//   - chaos_test.go: writers and random faults against several reflectors
//     and informers at once (TestChaos; make chaos runs it long).
//   - badinput_test.go: the fake server's answers to bad requests, and a
//     fuzz target for its handler with authentication on.
//   - security_test.go: TLS verification, credentials kept out of every
//     output, authentication (bearer tokens) and authorization on every
//     verb and the websocket upgrade, the admin endpoint.
//   - security_certs_test.go: authentication by client certificate on
//     every verb (none, another CA's, a forbidden user's, an allowed one).
//   - exec_plugin_test.go: the exec credential plugin the matrix's exec
//     rows authenticate with.
//   - attackers_test.go: with -chaos.flood (make chaos), waves of idle,
//     stalled and HTTP/2-preface connections against the server of every
//     matrix row and of the chaos test.
//   - hostileinput_test.go: requests an attacker would send the fake
//     server (objects of tens of thousands of keys, a JSON patch of
//     copies that double the document), each with its bound on time and
//     heap.
//   - limits_test.go: the server's limits on one client: watches per user,
//     a watcher that stops reading.
//   - leak_test.go: informers started and stopped by the thousand.
//   - fuzz_test.go: fuzz targets for parsers of network input that had
//     none (discovery documents).
//   - flags_test.go: the flags of the long form (-reliability.long,
//     -chaos.flood, -chaos.duration, -chaos.seed, and -matrix.out in matrix_test.go).
//   - example_test.go: the runnable examples.
package reliability
