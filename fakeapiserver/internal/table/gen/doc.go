// Command gen reads the Tables captured from a real kube-apiserver (the
// files <group>_<resource>.json.gz of a directory, each {"date", "table"};
// the core group is spelled "core") and writes the Go table of their
// column definitions that the fake server's table package serves for the
// built-in resources:
//
//	go run ./fakeapiserver/internal/table/gen \
//	    -in fakeapiserver/internal/table/testdata/real \
//	    -out fakeapiserver/internal/table/zz_generated_columns.go
//
// Captures named variant_* (other requests for the same resources) and
// those of custom resources (group example.com) are skipped: their columns
// come from their CRDs. Two captures of one resource are an error.
//
// Files:
//
//	main.go  the command: read the captures, write the column table
package main
