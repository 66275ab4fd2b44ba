// Package table renders Kubernetes Tables (meta.k8s.io/v1 Table), what
// kubectl get asks for with Accept: application/json;as=Table;v=v1;g=meta.k8s.io.
//
// A Table has column definitions (name, type, format, description,
// priority: kubectl shows priority-1 columns only with -o wide) and one
// row of cells per object, each row carrying the object as
// includeObject asks (None, Metadata — a PartialObjectMetadata, the
// default — or Object). The built-in resources have the real server's
// columns (generated from its answers, zz_generated_columns.go) and, for
// the common kinds, its cells: pods, deployments, replica sets, stateful
// sets, daemon sets, jobs, cron jobs, services, config maps, secrets,
// service accounts, namespaces, nodes, events, ingresses, persistent
// volumes and claims, leases, custom resource definitions, role
// bindings, API services, flow schemas, priority levels, priority
// classes, IP addresses and service CIDRs. Any other
// resource gets Name and Created At; custom resources their CRD's
// additionalPrinterColumns (ForCustom).
//
// It sits in the fake API server's GET, LIST and WATCH responses, off
// the learner's path (socket → rest → watch → reflector → cache →
// informer).
//
// Where things are:
//   - table.go: Column, IncludeObject, Printer (Columns, Cells, Render),
//     Options.
//   - builtin.go: For, the cells of the built-in resources;
//     builtin_more.go: the cluster-level ones (RBAC, API services, flow
//     control, scheduling, networking, certificate signing requests).
//     hpa.go: HorizontalPodAutoscalers.
//   - custom.go: ForCustom, PrinterColumn, the JSONPath subset.
//   - values.go: reading objects, ages (HumanDuration), selectors.
//   - zz_generated_columns.go: the real server's column definitions,
//     written by gen/ from testdata/real (go generate).
//   - testdata/real: Tables a real kube-apiserver returned (with the full
//     objects), replayed by the tests.
package table

//go:generate go run ./gen -in testdata/real -out zz_generated_columns.go
