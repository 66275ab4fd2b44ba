// Package apply implements server-side apply and the managedFields
// bookkeeping of every write, for the fake API server.
//
// Each object records, in metadata.managedFields, which manager owns
// which fields (FieldsV1: "f:<field>" for a field or map key,
// `k:{"name":"x"}` for the item of a list keyed by its merge key,
// `v:"x"` for a value of a set, "." for the item itself when it also has
// owned fields). An ordinary write gives its manager the fields it
// changed (Update); an apply (PATCH application/apply-patch+yaml) states
// a manager's whole intent: its fields are merged in, the fields it
// stopped applying are removed when nobody else owns them, and changing a
// field another manager owns is a conflict unless forced (Apply).
//
// How each value is owned comes from the kind's schema (package openapi):
// struct fields and map keys one by one, associative lists item by item,
// sets value by value, atomic values whole. Without a schema (a custom
// resource that keeps unknown fields) objects are maps and lists are
// atomic.
//
// It sits in the fake server's write path, off the learner's path
// (socket → rest → watch → reflector → cache → informer).
//
// Where things are:
//   - apply.go: Apply, Result, request checks. update.go: Update.
//   - object.go: Request, the paths nobody owns, managedFields in objects.
//   - types.go: Type (ForKind, ForSchema) and how a value is classified.
//   - walk.go: the field set of a configuration, and comparing versions.
//   - versions.go: Converter, one write's changes seen at the API version
//     each entry was recorded at.
//   - merge.go: merging a configuration into the live object (the
//     server's list order; Merge, without ownership, for mutating
//     admission policies) and removing fields.
//   - fieldset.go: paths, sets of paths, FieldsV1 encoding, paths as
//     conflict messages print them.
//   - managers.go: managedFields entries, their order and the cap on
//     update entries. errors.go: Error, ConflictError.
//   - testdata/: applies and updates recorded against a real
//     kube-apiserver (by ../strategicpatch/recorder), replayed by the tests.
package apply
