// Package cluster gives a test a cluster in a box: an in-process fake API
// server with the controllers and simulated nodes the test asks for,
// running as clients over loopback, all on the server's clock.
//
//	c := cluster.Start(t, cluster.Options{Controllers: controllers.All, Nodes: 3})
//	// create a Deployment through c.Client or kubectl with c.Kubeconfig;
//	// its ReplicaSet, pods, scheduling and readiness follow.
//
// With a fakeapiserver.FakeClock in Options.Server.Clock, the server, the
// controllers and the nodes share that clock: a test moves time with
// Step (readiness delays, crash back-off, progress deadlines, leases)
// instead of sleeping.
//
// # Files
//
//	cluster.go Cluster, Options, Start
//	clock.go   the server's clock seen as the controllers' clock
//	await.go   Await, AwaitNamed and Watch: a test's own informer, to wait on conditions
//
// bench_test.go has BenchmarkRollout: nodes, Deployments and pods at scale.
package cluster
