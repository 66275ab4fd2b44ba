// Package discovery serves what kubectl and client libraries read before
// anything else: /version, health checks, the legacy discovery documents
// (/api, /apis, /apis/g, /api/v1, /apis/g/v), aggregated discovery
// (apidiscovery.k8s.io/v2) and the OpenAPI v2 and v3 documents, all
// rendered from the resources a registry holds and cached until the
// registry changes (a CRD is added or removed).
//
// It sits above registry and request; the root package routes every path
// that is not a resource here (Server.ServeNonResource) and a
// group-version's own document to Server.ServeGroupVersion.
//
// # Files
//
//   - discovery.go: Server; /version, the legacy and aggregated
//     documents.
//   - health.go: /healthz, /livez and /readyz, with ?verbose, ?exclude
//     and one check's path.
//   - discovery_docs.go: the legacy documents' types.
//   - openapi.go: OpenAPI v3, per group-version, from internal/openapi.
//   - openapi_v2.go: /openapi/v2, as JSON or as the protobuf kubectl asks
//     for first.
package discovery
