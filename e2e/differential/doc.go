// Package differential sends the same raw HTTP requests to a real
// kube-apiserver and to kubecache's fake API server and lists every way
// their answers differ: status codes, Status reasons and messages, headers
// that clients read, event type sequences and the objects themselves, with
// resourceVersions, uids and timestamps compared by presence only.
//
// The rows are API-SEMANTICS.md's tables and the requests kubectl makes
// for get, apply, edit, delete and get -w (captured from its -v=9 log
// against the real server, kept in testdata/kubectl). A difference fails
// the test unless it is in the known list, which points to where it is
// written down (docs/fidelity.md, docs/requests-fakeapiserver.md).
//
//   - harness.go: Side (one server and its variables), Request, Response,
//     watch streams.
//   - case.go: Servers and Case — one row, run on both servers at once.
//   - compare.go: normalizing and diffing answers.
//   - known.go: the known differences' shape.
//   - kubectl.go: parsing kubectl's -v=9 log into requests.
//
// It runs when the e2e target is a real server (E2E_TARGET=real or
// kubeconfig); against the fake target there is nothing to compare.
package differential
