// Package bench measures kubecache as a whole: the in-repo benchmark
// suite (`make bench`) and, in bench/informer, the command that runs one
// informer against the benchmark harness's replay server so that kubecache
// and client-go are measured side by side.
//
// Where it sits: outside the flow, looking at all of it —
//
//	socket → rest → watch → reflector → cache → informer → handlers
//	└──────────── BenchmarkInformerSync (fake API server, loopback HTTP) ┘
//	        meta.Decode: BenchmarkDecode    cache.Indexer: BenchmarkIndexer
//
// The figures and the commands that produced them are in
// docs/performance.md.
//
// # Files
//
//	pod.go            Pod, the typed object every benchmark decodes
//	bench_test.go     decoder, store and end-to-end benchmarks
//	informer/         the replay-harness command (one JSON result line per run)
package bench
