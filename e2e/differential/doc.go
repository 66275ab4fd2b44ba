// Package differential sends the same raw HTTP requests to a real
// kube-apiserver and to kubecache's fake API server and lists every way
// their answers differ: status codes, Status reasons and messages, headers
// that clients read, event type sequences and the objects themselves, with
// resourceVersions, uids and timestamps compared by presence only.
//
// The rows are docs/api-semantics.md's tables and kubectl itself: apply,
// get, get -w, edit, label, apply --server-side, scale and delete run with
// -v=9 against both servers (TestKubectl), their logs parsed into
// requests and answers and compared. A difference fails the test unless
// it is in the known list (known_test.go), which points to its entry in
// docs/fidelity.md; an entry of that list no difference needed fails the
// run (TestMain), so that a fix in the fake server cannot leave a stale
// excuse behind.
//
//   - harness.go: Side (one server and its variables), Request, Response,
//     watch streams.
//   - case.go: Servers and Case — one row, run on both servers at once.
//   - compare.go: normalizing and diffing answers.
//   - known.go: the known differences, which of them matched, the stale
//     ones.
//   - kubectl.go: parsing kubectl's -v=9 log into requests and answers.
//
// It runs when the e2e target is a real server (E2E_TARGET=real or
// kubeconfig); against the fake target there is nothing to compare.
package differential
