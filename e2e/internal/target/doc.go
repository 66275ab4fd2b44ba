// Package target chooses and drives what the e2e suite runs against: a real
// kube-apiserver started by e2e/realserver.sh, kubecache's fake API server
// in the test process, or any cluster from a kubeconfig (E2E_TARGET).
//
// Every test package of the suite calls Main from its TestMain and Get in
// its tests; the tests themselves do not know which target they have,
// except where they need an access only some targets give (restarting the
// server, compacting its storage), where they skip with the reason.
//
//   - target.go: Target, FromEnv, the client configurations, Restart and
//     Compact.
//   - main.go: Main and Get.
//   - namespace.go: a namespace per test, created and deleted.
//   - etcd.go: compaction through etcd's HTTP gateway.
//   - script.go: realserver.sh and its env file.
package target
