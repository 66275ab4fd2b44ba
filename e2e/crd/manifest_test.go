package crd

import "strings"

// e2eCRD is the YAML manifest of the namespaced CustomResourceDefinition
// <plural>.e2e.kubecache.io with kind kind and one version, v1, served
// and stored. spec is the rest of the schema of the objects' spec after
// its "type: object": YAML lines indented twelve spaces (a leading
// newline is dropped, so a raw string can start on its own line).
func e2eCRD(plural, kind, spec string) string {
	return e2eRootCRD(plural, kind, `
        properties:
          spec:
            type: object
`+strings.TrimPrefix(spec, "\n"))
}

// e2eRootCRD is e2eCRD with the rest of the objects' whole schema after
// its "type: object": YAML lines indented eight spaces.
func e2eRootCRD(plural, kind, schema string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + plural + `.e2e.kubecache.io}
spec:
  group: e2e.kubecache.io
  names: {plural: ` + plural + `, kind: ` + kind + `}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
` + strings.TrimPrefix(schema, "\n")
}
