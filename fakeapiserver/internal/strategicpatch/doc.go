// Package strategicpatch applies Kubernetes strategic merge patches
// (Content-Type application/strategic-merge-patch+json), the patch format
// kubectl apply, edit and patch send for the built-in kinds.
//
// A strategic merge patch is a JSON merge patch whose lists know how to
// merge: the containers of a pod merge by name, their ports by
// containerPort, finalizers as a set; other lists (tolerations, args) are
// replaced whole. The knowledge comes from the kind's schema (the
// x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key extensions
// of the real server's OpenAPI documents, held by package openapi), and
// the patch may steer the merge with directives: $patch (replace, delete),
// $retainKeys, $setElementOrder/<field> and
// $deleteFromPrimitiveList/<field>.
//
// It sits in the fake API server's PATCH handler, off the learner's path
// (socket → rest → watch → reflector → cache → informer): the server reads
// the current object, calls Apply with the patch and the kind's Schema,
// then stores the result like any update.
//
// Where things are:
//   - apply.go: Apply and ApplyValue, the object merge.
//   - list.go: list merges, $patch items, the server's item order.
//   - directives.go: $retainKeys, $setElementOrder, and how patch values
//     without an original counterpart are cleaned.
//   - schema.go: Schema, PatchMeta, NoSchema, ForKind (a Schema read from
//     openapi.Definitions).
//   - errors.go: Error, carrying the status the real server answers.
//   - recorder/: the tool that recorded testdata/cases.golden.json from a
//     real kube-apiserver; the tests replay those cases.
package strategicpatch
