// Package fakeapiserver is an in-memory Kubernetes API server with the
// real server's list and watch semantics and with fault injection, for
// testing anything that talks to Kubernetes — kubecache's own reflector and
// informers, client-go programs, kubectl — without a cluster.
//
// It sits beside rest in kubecache's flow (socket → rest → watch →
// reflector → cache → informer): it is the other end of the socket. It
// imports only the pure pieces meta, selector and watch, never the client
// side, so it cannot share a bug with the client it tests. Its
// specification is the real server's wire behaviour, as the project's API
// semantics page in docs/ describes it; how closely it follows it, and
// where it does not, is docs/fidelity.md.
//
//	s := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
//	cfg := s.Kubeconfig()   // or s.URL() for plain HTTP
//
// # The rooms
//
// The server is built in layers; each imports only those below it, and
// nothing below the handlers knows about HTTP handlers or the Server.
//
//   - internal/storage (bottom): the store — one global resourceVersion,
//     one persistent sorted map per resource per resourceVersion, the
//     change log, compaction — and the watch fan-out. No HTTP, no wire
//     encoding: the watch handler hands it an Encoding.
//   - internal/apistatus (bottom): the Status bodies of every error the
//     server answers with, and field errors.
//   - internal/registry: what each kind is and does — the generated
//     built-in resource table and the per-kind rules (selectable fields,
//     generation, name rules), CRD-served resources.
//   - internal/validation: metadata rules, a body against its kind's
//     OpenAPI schema, a custom resource against its CRD's schema.
//   - internal/request: request and response plumbing — URL parsing, list
//     options, content negotiation, writing bodies and Statuses, decoding
//     request bodies, Match.
//   - internal/discovery: /version, health, discovery documents, OpenAPI.
//   - internal/auth: tokens, client certificates, impersonation, forbid
//     rules, the generated CA.
//   - internal/faults: the fault model (fail, delay, expire, stale lists;
//     which watches a watch fault hits).
//   - internal/controllers: the garbage collector, namespace deletion and
//     CRDs, writing through a Writer the root implements with its
//     ordinary write paths.
//   - this package (top): Server, Options and the HTTP handlers.
//
// Where a change goes: a new per-kind rule or selectable field in
// internal/registry (resources_behaviour.go); a new response encoding in
// internal/request (negotiate.go, output.go); a new check of a request
// body in internal/validation; a new verb or subresource handler here
// (beside crud_*.go, scale.go); a new in-server controller in
// internal/controllers, hooked in through hooks.go; a new fault in
// internal/faults with its Server method in faults.go.
//
// Supporting packages: internal/pmap (persistent sorted map), internal/jsonv
// (JSON values), internal/patch and internal/strategicpatch (JSON, merge and
// strategic merge patch), internal/apply (server-side apply),
// internal/openapi (the real server's schemas), internal/table (Tables),
// internal/builtin (built-in defaulting and validation), internal/metrics
// (/metrics),
// internal/satoken (service account tokens), internal/gen (generates the
// resource table).
//
// # Files of this package
//
//   - server.go: Server, New, NewForTest, Start, URL, Close; request
//     routing, request log, panic recovery. options.go: every knob.
//     clock.go: Clock, RealClock and FakeClock, package clock's types.
//   - limits.go: the real server's limits on requests: the in-flight
//     budgets (429 past them), the request deadline (?timeout=,
//     RequestTimeout) and which requests are long-running.
//   - resource.go: dispatch of a resource request and GET.
//     crud_create.go, crud_update.go, crud_patch.go (JSON and merge
//     patch), crud_delete.go (finalizers, graceful pods, delete
//     collection). apply.go: server-side apply (internal/apply).
//     managedfields.go: the field manager and the version managedFields
//     are recorded at (the version written, for kinds that convert).
//   - list.go: snapshots, pagination, continue tokens; large lists
//     streamed from the stored bytes. watch.go: the watch stream (initial
//     events, bookmarks, timeouts, selector transitions). watchflush.go:
//     flush pacing. watch_gzip.go: gzip-encoded streaming lists.
//     websocket.go: watch over a websocket.
//   - scale.go: the scale subresource. tables.go: meta.k8s.io Tables for
//     reads that ask for as=Table. namespace_finalize.go: the
//     namespaces/finalize subresource. virtual.go: the create-only
//     resources (access and rules reviews, bindings); review_body.go reads
//     their bodies.
//   - controllers.go: the Writer the in-server controllers write through.
//   - faults.go (Go API) and admin.go (HTTP): injected failures, delays,
//     cut and stalled watches, compaction, restarts, stale reads.
//   - auth.go, resources.go: the public names of auth's and registry's
//     types (User, ForbidRule, ClientUser, Resource).
//   - manifests.go: loading YAML/JSON objects. kubeconfig.go: Kubeconfig
//     and ClientTLSConfig. waiters.go: WaitForWatchers, Watchers and
//     AwaitWatchers, so tests never sleep.
//   - builtin.go: built-in kinds between decoding and storing (defaulting,
//     admission changes, validation, Service addresses; internal/builtin).
//     list_protobuf.go: a list page as protobuf, streamed.
//   - shard.go: sharded list and watch (Options.ShardedListAndWatch, the
//     shardSelector parameter; internal/request/shard.go parses it).
//   - admission_policy.go: the stored ValidatingAdmissionPolicies run on
//     every write, their warnings and refusals (internal/admission).
//   - connect.go: the kubelet subresources (pods/log, exec, attach,
//     portforward, nodes/proxy). token.go: TokenRequest and service
//     account tokens (internal/satoken). metrics.go: request metrics with
//     the real server's names and labels (internal/metrics).
//   - eviction.go: pods/eviction, PodDisruptionBudgets honoured as the
//     real server honours them (internal/builtin's eviction rules).
//
// Tests drive the server over loopback (or its http.Handler). Load tests
// (build tag load): load_test.go, load_list_test.go; fanoutload_test.go is
// the fan-out harness they and BenchmarkFanOutLoad share.
package fakeapiserver
