// Package controllers holds the fake API server's in-process controllers:
// what kube-controller-manager and the apiextensions server do for the
// real API server, done by the fake server itself right after each
// committed write, so a test sees their result when the write that caused
// it returns.
//
//   - The garbage collector follows metadata.ownerReferences: background,
//     foreground and orphan deletion, and dependents whose owner never
//     existed.
//   - Namespace deletion empties a terminating namespace, keeps its
//     conditions, and removes it once its spec finalizers are gone.
//   - CustomResourceDefinitions add their resources to the registry when
//     created (and mark themselves Established) and remove them, with
//     their objects, when deleted.
//
// The controllers read the store directly and never write around the
// server: every change goes through a Writer (the root package's delete
// and update commits), so admission, hooks and the garbage collector
// apply to their writes as to a client's, and no HTTP is involved.
//
// It sits above storage, registry, validation and apistatus; it does no
// HTTP, and deletes take meta.DeleteOptions.
//
// # Files
//
//   - controllers.go: Controllers, Writer, New, Switches (the garbage collector and the namespace controller can be off).
//   - hooks.go: the hooks that give namespaces and CRDs their behaviour
//     (before create and update, instead of delete) and AfterWrite, which
//     runs after every committed write.
//   - gc.go: the garbage collector.
//   - namespaces.go: namespace defaults, deletion and conditions.
//   - crd.go: CustomResourceDefinition validation and the resources it
//     serves.
package controllers
