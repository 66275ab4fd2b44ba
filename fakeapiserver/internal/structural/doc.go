// Package structural holds a CustomResourceDefinition version's
// structural schema with every keyword the real server enforces, and
// applies it to custom resources: defaults (default.go) and value
// validation with the real server's causes and messages, ratcheted on
// update (validate.go, lists.go).
//
// Where things are:
//   - schema.go: Schema and Parse (a CRD's openAPIV3Schema, as JSON).
//   - invariants.go: Problems, why a schema is not structural, in the
//     real server's words; invariants_nested.go: what allOf, anyOf,
//     oneOf and not may hold, and the fields they name the root must
//     specify.
//   - rules.go: Rules, what every CRD schema keeps besides being
//     structural (supported keywords and types, patterns, list and map
//     types, the form of x-kubernetes-validations); status_root.go:
//     StatusRootRules, the root's keywords with the status subresource
//     on.
//   - default.go: Default, the defaults of absent fields, applied
//     top-down so a defaulted object gets its own fields' defaults.
//   - validate.go: Validate, the keyword checks (required, enum, bounds,
//     lengths, pattern, formats, item and property counts, embedded
//     resources), skipping values an update left unchanged.
//   - lists.go: the list types' uniqueness (set, map with keys).
//   - format.go: the string formats the real server checks.
package structural
