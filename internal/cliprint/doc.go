// Package cliprint prints Kubernetes objects the way kubectl does, for the
// kubecache command: tables with the columns kubectl shows for the kinds a
// newcomer meets first, -o wide, json, yaml and name, ages in kubectl's
// style, and a custom resource's additionalPrinterColumns through a small
// JSONPath evaluator.
//
// It sits at the very end of kubecache's flow (socket → rest → watch →
// reflector → cache → informer → the command), off the learner's path:
// nothing here is needed to understand how a cache stays true, only to show
// what it holds. It prints from the objects themselves (meta.Unstructured),
// never asking the server for a Table, so what is printed is exactly what
// the cache holds.
//
// # Files
//
//	doc.go        this map
//	format.go     Format and ParseFormat (the values of -o)
//	print.go      Print, NameOf, TableLayout: tables, JSON, YAML and names
//	builtin.go    the columns of pods, deployments, services, nodes,
//	              namespaces, configmaps and secrets
//	columns.go    Column: a custom resource's printer columns, ColumnsFromCRD
//	jsonpath.go   the JSONPath subset printer columns use
//	age.go        HumanDuration and Age, the AGE column
package cliprint
