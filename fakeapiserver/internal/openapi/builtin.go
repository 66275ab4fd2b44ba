package openapi

import "sync"

// Builtin returns the definitions of every kind a real kube-apiserver
// v1.37 serves, read from its OpenAPI v3 documents (see gen/). The result
// is shared and read-only.
func Builtin() *Definitions { return builtin() }

var builtin = sync.OnceValue(func() *Definitions {
	d, err := NewDefinitions(builtinSchemas)
	if err != nil {
		// The table is generated and checked by the tests; a dangling
		// reference here is a build defect, not an input error.
		panic(err)
	}
	return d
})

// BuiltinSources lists the captured documents the built-in table was
// generated from.
func BuiltinSources() []string { return append([]string(nil), builtinSources...) }
