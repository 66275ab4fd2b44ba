// Package fakeapiserver is an in-memory Kubernetes API server with the
// real server's list and watch semantics and with fault injection, for
// testing anything that talks to Kubernetes — kubecache's own reflector and
// informers, client-go programs, kubectl — without a cluster.
//
// It sits beside rest in kubecache's flow (socket → rest → watch →
// reflector → cache → informer): it is the other end of the socket. It
// imports only the pure pieces meta, selector and watch, never the client
// side, so it cannot share a bug with the client it tests. Its
// specification is the real server's wire behaviour (API-SEMANTICS.md);
// what it does not do is listed in docs/fidelity-fakeapiserver.md.
//
//	s := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
//	cfg := s.Kubeconfig()   // or s.URL() for plain HTTP
//
// # Where things are
//
//   - server.go: Server, New, NewForTest, Start, URL, Close; request
//     routing, request log, panic recovery. options.go: every knob.
//     clock.go: the Clock interface and FakeClock.
//   - storage.go: the store — one global resourceVersion, one persistent
//     sorted map per resource (internal/pmap) per resourceVersion, and the
//     change log; compaction. fanout.go: watchers, their bounded queues
//     (a watch in one namespace is not queued other namespaces' changes),
//     encoded-once events.
//   - object.go: how an object is held (its JSON, split so the same bytes
//     serve objects, list items and every version). decode.go: request
//     bodies. validation.go: metadata rules and write options.
//     validation_types.go: one walk of a built-in kind's body against its
//     OpenAPI schema (wrong types, unknown and duplicate fields);
//     validation_quantity.go: quantities; validation_custom.go: custom
//     resources against their CRD's structural schema (pruning, types).
//     managedfields.go: Update
//     entries of metadata.managedFields (recorded by internal/apply's
//     Update; the field manager from the User-Agent).
//   - requestinfo.go: URL → verb and resource. resource.go: dispatch and
//     GET. crud_create.go, crud_update.go, crud_patch.go (JSON and merge
//     patch, internal/patch), crud_delete.go (finalizers, graceful pods,
//     delete collection).
//   - listoptions.go: list/watch parameters and their validation.
//     list.go: snapshots, pagination, continue tokens; large lists
//     streamed from the stored bytes. watch.go: the watch stream (initial
//     events, bookmarks, timeouts, selector transitions). watchflush.go:
//     flush pacing (one write per burst, none delayed when idle).
//     Load tests (build tag load): load_test.go, load_list_test.go (LIST
//     against the peerbench replay server); fanoutload_test.go is the
//     fan-out harness they and BenchmarkFanOutLoad share.
//   - resources.go: the Resource model and registry. resources_builtin.go:
//     the built-in table. resources_behaviour.go: per-resource rules (field
//     selectors, generation, create-on-update...). hooks.go, namespaces.go,
//     crd.go: the resources with behaviour beyond storage.
//   - gc.go: the garbage collector (ownerReferences: background,
//     foreground, orphan), run after every write through the ordinary
//     write paths; namespaces.go also empties and removes a deleted
//     namespace, namespace_finalize.go serves namespaces/finalize.
//     scale.go: the scale subresource (autoscaling/v1 Scale).
//   - discovery.go (discovery_docs.go: the legacy documents' types),
//     openapi.go, openapi_v2.go (internal/openapi): what kubectl reads
//     first; the resource table is generated from a real server's
//     discovery documents by internal/gen. negotiate.go, output.go:
//     content types, pretty printing, Status bodies (status.go).
//     tables.go: meta.k8s.io Tables (internal/table) for list, single GET
//     and watch events when a read asks for as=Table; custom resources
//     use their CRD's additionalPrinterColumns.
//   - auth.go, tls.go: tokens, client certificates, impersonation, forbid
//     rules, the generated CA. virtual.go: the create-only resources
//     (access and rules reviews, bindings); review_body.go reads their
//     bodies, including the protobuf kubectl auth can-i sends
//     (internal/reviewpb). websocket.go: watch over a websocket.
//   - faults.go (Go API) and admin.go (HTTP): injected failures, delays,
//     cut and stalled watches, compaction, restarts, stale reads.
//   - manifests.go: loading YAML/JSON objects. kubeconfig.go. waiters.go:
//     WaitForWatchers, so tests never sleep.
package fakeapiserver
