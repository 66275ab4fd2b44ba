// Command informer measures one kubecache informer against the benchmark
// harness's replay server (peerbench): an informer on pods in all
// namespaces with the namespace index, a handler counting notifications,
// one JSON result line on stdout in the harness's format.
//
//	informer -server http://127.0.0.1:PORT -mode typed|unstructured|metadata[-json|-protobuf] [-strip-managed-fields] [-watchlist] [-relist]
//
// Modes choose the object the cache holds: typed is this command's Pod (the
// fields a controller usually reads), unstructured is meta.Unstructured
// (the whole object), metadata is meta.PartialObjectMetadata. The wire
// format is the reflector's automatic choice (protobuf for typed and
// metadata, JSON for unstructured) unless a suffix (-json, -protobuf) or
// -wire forces one; the result's wire field says what the server sent.
//
// The measurement follows the harness's contract step by step: a live heap
// baseline after two collections; the initial sync; the live heap once
// synced; M watch notifications timed from the first to the last; process
// CPU (minus the forced collections) and peak RSS. With -relist the
// command then forces a relist with a 410 Expired and reports the live
// heap at its peak over the steady state's.
//
// Files:
//
//	main.go     main: the signal context around run
//	run.go      the flags, run, and the measurement of one mode step by step
//	measure.go  the result line, the replay server's info and stats, CPU and RSS
//	relist.go   the ListerWatcher wrapper that expires the watch for -relist
package main
