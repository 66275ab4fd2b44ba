// Package openapi holds the OpenAPI schema of the Kubernetes built-in kinds
// and renders the OpenAPI documents the fake API server serves.
//
// kubectl reads /openapi/v3 before create -f, apply -f, edit and apply
// --server-side; without it those commands fail. The fake server stores
// objects schema-less, but strategic merge patch and server-side apply
// still need to know how each list and map merges, and kubectl's
// client-side apply reads the same facts from these documents, so both
// sides consult one table, generated from a real kube-apiserver's
// documents.
//
// Where things are:
//   - schema.go: Schema (one node: shape and the x-kubernetes-*
//     extensions), Definitions (named schemas, lookup by kind, reference
//     resolution).
//   - documents.go: Index and GroupVersion, the /openapi/v3 documents
//     rendered for the served resources (Resource).
//   - custom.go: CustomGroupVersion, the document of a group version
//     served from CustomResourceDefinitions (their published schemas,
//     lists and operations).
//   - custom_v2.go: the narrowing of custom schemas for Swagger 2.0.
//   - swagger.go: Swagger, the /openapi/v2 (Swagger 2.0) document
//     derived from the v3 documents.
//   - swagger_proto.go: SwaggerProto, that document as the gnostic
//     openapi.v2.Document protobuf the real server also serves;
//     swagger_proto_messages.go holds the messages' field numbers.
//   - jsonschema.go: FromJSONSchema, a CRD's openAPIV3Schema as a Schema.
//   - builtin.go: Builtin, the definitions of every built-in kind;
//     zz_generated_builtin.go is the table itself, written by gen/ from
//     the documents captured under testdata/real.
//
// The package is off the learner's path (socket → rest → watch →
// reflector → cache → informer): it belongs to the fake server's
// machinery for kubectl.
package openapi

//go:generate go run ./gen -out zz_generated_builtin.go testdata/real/v3_api_v1.json.gz testdata/real/v3_apis_admissionregistration.k8s.io_v1.json.gz testdata/real/v3_apis_apiextensions.k8s.io_v1.json.gz testdata/real/v3_apis_apiregistration.k8s.io_v1.json.gz testdata/real/v3_apis_apps_v1.json.gz testdata/real/v3_apis_authentication.k8s.io_v1.json.gz testdata/real/v3_apis_authorization.k8s.io_v1.json.gz testdata/real/v3_apis_autoscaling_v1.json.gz testdata/real/v3_apis_autoscaling_v2.json.gz testdata/real/v3_apis_batch_v1.json.gz testdata/real/v3_apis_certificates.k8s.io_v1.json.gz testdata/real/v3_apis_coordination.k8s.io_v1.json.gz testdata/real/v3_apis_discovery.k8s.io_v1.json.gz testdata/real/v3_apis_events.k8s.io_v1.json.gz testdata/real/v3_apis_flowcontrol.apiserver.k8s.io_v1.json.gz testdata/real/v3_apis_networking.k8s.io_v1.json.gz testdata/real/v3_apis_node.k8s.io_v1.json.gz testdata/real/v3_apis_policy_v1.json.gz testdata/real/v3_apis_rbac.authorization.k8s.io_v1.json.gz testdata/real/v3_apis_resource.k8s.io_v1.json.gz testdata/real/v3_apis_scheduling.k8s.io_v1.json.gz testdata/real/v3_apis_storage.k8s.io_v1.json.gz testdata/real/v3_apis_storagemigration.k8s.io_v1.json.gz
