// Package admission runs the admission policies a real kube-apiserver
// runs: ValidatingAdmissionPolicies bound by
// ValidatingAdmissionPolicyBindings and MutatingAdmissionPolicies bound
// by MutatingAdmissionPolicyBindings, their CEL expressions compiled with
// github.com/google/cel-go in the environment of the real server
// (object, oldObject, request, params, namespaceObject, authorizer,
// variables) and their refusals and warnings in its words.
//
// Where things are:
//   - attributes.go: Attributes, what admission sees of a request.
//   - policy.go: the admissionregistration.k8s.io/v1 types policies and
//     bindings are read into, and their label selectors.
//   - match.go: matchConstraints and a binding's matchResources
//     (resource rules, exclusions, selectors, matchPolicy Equivalent).
//   - env.go: the CEL environment of a policy, its variables' type, and
//     the compilation of one expression.
//   - compile.go: a policy compiled.
//   - eval.go: one evaluation: lazily evaluated variables, the cost
//     budget, the real error wording.
//   - params.go: the params a binding's paramRef selects.
//   - validate.go: one policy's validations, messages and audit
//     annotations for one param.
//   - request.go: the request and namespaceObject variables.
//     namespace_type.go: namespaceObject's declared type.
//   - authz.go: the authorizer variables.
//   - dispatch.go: Dispatcher, every policy and binding against one
//     request, and the refusal.
//   - check.go: CheckPolicy and CheckBinding, a validating policy or
//     binding being written. check_mutating.go: CheckMutatingPolicy.
//   - mutating.go: MutatingAdmissionPolicies: their mutations compiled
//     and applied (ApplyConfiguration merged with the kind's field
//     structure, JSONPatch), Dispatcher.Mutate and its refusal.
//   - patchtypes.go: the Object and JSONPatch types mutations build,
//     jsonpatch.escapeKey, and their values as documents.
package admission
