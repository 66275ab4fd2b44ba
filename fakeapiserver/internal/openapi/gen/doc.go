// Command gen reads OpenAPI v3 documents captured from a real
// kube-apiserver (/openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>,
// plain or gzipped) and writes the Go table of their schemas that the fake
// server's openapi package serves and that strategic merge patch and
// server-side apply consult: each definition's shape and the Kubernetes
// extensions that say how its lists and maps merge.
//
//	go run ./fakeapiserver/internal/openapi/gen \
//	    -out fakeapiserver/internal/openapi/zz_generated_builtin.go \
//	    fakeapiserver/internal/openapi/testdata/real/v3_api*.json.gz
//
// Descriptions, defaults other than {}, enums and validation keywords are
// dropped; a definition that two documents describe differently is an
// error.
//
// Files:
//
//	main.go  the command: read the documents, merge their definitions, write the table
package main
