// Package programs runs kubecache's programs as processes against the e2e
// target, the way a user runs them: the `kubecache` command's get and watch,
// and the example controller examples/configmap-mirror reaching its goal.
// Each test builds nothing itself: TestMain builds both binaries once
// (go build, cached) from the kubecache module this e2e module replaces,
// then every test starts them with the target's kubeconfig and checks what
// they print and what they leave on the server, bounded in time.
//
//   - main_test.go: TestMain (the target, the builds) and the process
//     helpers.
//   - await_test.go: waiting on a client-go watch until the server's state
//     holds a condition (no polling, no sleeps).
//   - kubecache_test.go: kubecache get (table, -o name, -o json, label
//     selectors, paginated lists, an unknown resource) and kubecache watch
//     (the initial list, then ADDED, MODIFIED and DELETED as JSON lines,
//     and the summary on Ctrl-C).
//   - controller_test.go: configmap-mirror copies a labelled ConfigMap into
//     every namespace, into a namespace created later, follows a change and
//     removes the copies when the label goes.
//
// It sits at the end of the flow: everything under it (rest, watch,
// reflector, cache, informer, the command and the example) is exercised
// through the programs' own flags and output.
package programs
