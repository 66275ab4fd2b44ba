// Package selector parses and matches Kubernetes label and field selectors,
// the labelSelector and fieldSelector query parameters of a list or watch.
//
// Where it sits: a client passes a selector's String to the API server,
// which filters what it sends; the fake API server parses the same strings
// with this package and filters its store; listers filter the local cache
// with Matches. The grammar is the real server's (docs/api-semantics.md,
// "Selectors"), so a selector accepted here is accepted there and matches
// the same objects.
//
//	labelSelector=app=web,env in (prod,qa),!canary   → ParseLabels → Labels.Matches(obj.Labels)
//	fieldSelector=metadata.name=web                   → ParseFields → Fields.Matches(get)
//
// Files:
//
//	labels.go        Labels, Requirement and Operator: matching and the canonical String
//	labels_parse.go  the label selector lexer and parser (ParseLabels)
//	validate.go      the syntax of label keys and values
//	fields.go        Fields: ParseFields, escaping, matching, RequiresExactMatch
//	errors.go        ParseError, the error of both parsers
//
// Both selector types are immutable values whose zero value matches
// everything; they are safe for concurrent use.
package selector
