package fakeapiserver

import "strings"

// exampleCRD is the YAML manifest of the namespaced
// CustomResourceDefinition <plural>.example.net with kind kind and one
// version, v1, served and stored. spec is the rest of the schema of the
// objects' spec after its "type: object": YAML lines indented twelve
// spaces (a leading newline is dropped, so a raw string can start on its
// own line).
func exampleCRD(plural, kind, spec string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ` + plural + `.example.net}
spec:
  group: example.net
  names: {plural: ` + plural + `, kind: ` + kind + `}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
` + strings.TrimPrefix(spec, "\n")
}
