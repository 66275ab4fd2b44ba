// Command kubecache mirrors Kubernetes resources into a local cache the way
// a controller does — list, then watch, relist on 410 — and shows it
// happening. It is the end of kubecache's flow:
//
//	API server ──► rest ──► watch ──► reflector ──► cache ──► informer ──► kubecache (this command)
//
// and the first thing a newcomer runs:
//
//	kubecache demo                     no cluster: a fake API server, a workload, faults, narration
//	kubecache demo --web               the same, and a live web page of it with fault buttons
//	kubecache get pods -A --explain    a list through a reflector, narrated, printed like kubectl
//	kubecache watch deploy -n shop     an informer; every change as it is reflected
//	kubecache serve --kubeconfig-out kc    the fake API server as a process, for any client
//
// The flags are kubectl's (--kubeconfig, --context, -n, -A, -l,
// --field-selector, -o) and so are the error messages. main only calls
// run(ctx, args, stdout, stderr), which the tests call too.
//
// # Files
//
//	doc.go            this map
//	main.go           main, run, the list of commands, top-level usage
//	flags.go          flag sets with kubectl-style aliases, flags anywhere, --help
//	connect.go        kubeconfig (or in-cluster) → client; discovery → target
//	errors.go         errors printed as kubectl prints them
//	get.go            get: a reflector until its first Replace, then print
//	watch.go          watch: an informer, its events as text or JSON lines, the summary
//	explain.go        --explain: the reflector's trace hook, narrated
//	stats.go          counts from the trace hook; progress of a long first list
//	console.go        serialized output, the progress status line, terminal detection
//	demo.go           demo: fake server, informer, fault schedule
//	demo_workload.go  demo: the workload that writes ConfigMaps
//	metrics.go        watch --metrics-addr: the informer's metrics at /metrics (metrics/promtext)
//	web.go            --web: the live web view (internal/webview), the demo's fault buttons and sliders
//	serve.go          serve: fakeapiserver as a process
//	serve_files.go    serve --load: manifests confined to regular files in
//	                  their directory
//	version.go        version
//
// Tables, -o json/yaml/name and ages are printed by internal/cliprint.
package main
