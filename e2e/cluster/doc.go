// Package cluster runs the same scenarios on two clusters and compares
// what they observe: a real kube-apiserver with the real
// kube-controller-manager and kube-scheduler and kubecache's simulated
// nodes as a client of it (the real target, with the control plane that
// run.sh starts for this package under E2E_CONTROLPLANE=1), and
// kubecache's fake API server with
// kubecache's controllers and the same simulated nodes (in the test
// process, on every target).
//
// A scenario drives both clusters with client-go through the same steps
// (create a Deployment, scale it, roll it out, roll it back; run Jobs;
// create pods that cannot be scheduled; a namespace's default
// ServiceAccount; EndpointSlices following readiness) and records, per key,
// the sequence of distinct states its watches delivered (ReplicaSet scale
// sequences, conditions and their reasons, events) and a snapshot of the
// objects after each awaited step. Names the servers choose (ReplicaSets,
// pods, nodes) are replaced by the order they first appeared in, and no
// timing is compared. Every sequence must match, or the difference be
// listed in known.go with its entry in docs/fidelity.md; a known difference
// that no longer occurs fails the run.
//
// On the fake and kubeconfig targets, and on a real one without a control
// plane, only the fake cluster runs: the scenarios must reach their goals,
// and nothing is compared.
//
//   - side.go: the two clusters (Side), the simulated nodes on the real one.
//   - record.go: the recorder of sequences and the watches that feed it.
//   - known.go: comparing two recordings, the known differences.
//   - project.go: how objects are written down as states.
//   - *_test.go: the scenarios.
package cluster
