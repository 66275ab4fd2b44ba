// Command recorder replays scripted requests against a real kube-apiserver
// and records its answers, to serve as the expected results of the
// strategicpatch and apply tests (the real server is the specification).
//
//	set -a; . DIR/env; set +a   # DIR from e2e/realserver.sh start DIR
//	go run ./fakeapiserver/internal/strategicpatch/recorder \
//	    -in fakeapiserver/internal/strategicpatch/testdata/cases.yaml \
//	    -out fakeapiserver/internal/strategicpatch/testdata/cases.golden.json
//
// The input is a YAML list of cases, each a name and a list of steps
// {method, path, type, query, body}; "{ns}" in a path is replaced by a
// namespace created for the case (and deleted afterwards). type names the
// body's content type: json (default), strategic, merge, jsonpatch or
// apply; a body given as a string is sent as it is. The output repeats each step with the status code and body of
// the answer. Steps may set retry: true to repeat a request until it
// succeeds (a CustomResourceDefinition takes a moment to be served); a
// step's query holds its URL parameters (fieldManager, force). Only the
// address in $REALSERVER_URL is contacted.
//
// Files:
//
//	main.go  the command: Case and Step, replaying them and recording the answers
package main
