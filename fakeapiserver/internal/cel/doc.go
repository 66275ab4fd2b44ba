// Package cel runs a CustomResourceDefinition's x-kubernetes-validations
// rules with github.com/google/cel-go, the library kube-apiserver uses:
// the rules are compiled against the schema's types when the CRD is
// written (the real server's compile errors, word for word) and evaluated
// on every create and update of a custom resource (the real messages,
// reasons and field paths; transition rules on oldSelf; a runtime cost
// budget).
//
// Where things are:
//   - types.go: the CEL types a structural schema declares (objects as
//     struct types whose fields read JSON objects, lists, maps) and the
//     conversion of JSON values to the values rules see; Libraries, the
//     options every Kubernetes CEL environment has, and Native, a JSON
//     value without a schema (admission policies use both).
//   - compile.go: Compile, every rule of a schema compiled, and the
//     errors a CRD write gets for rules that do not compile.
//   - cost.go: the estimated cost of a rule or a messageExpression at
//     CRD write (the sizes the schema allows, the real limits and
//     wording).
//   - cost_calls.go: the estimated cost of calls the real server prices
//     itself (the Kubernetes libraries, string and list functions).
//   - library_net.go: the Kubernetes ip, cidr and url libraries.
//   - library_quantity.go, library_semver.go, library_format.go: the
//     Kubernetes quantity, semver and format libraries;
//     library_quantity_exponent.go reads quantities' large exponents.
//   - library_values.go: the conversions the values of those three
//     libraries' object types share.
//   - root.go: the root of a resource as rules see it (apiVersion, kind,
//     metadata.name and metadata.generateName).
//   - device.go: DeviceSelectorError, a device selector compiled against
//     the typed device the real server declares; device_cost.go: the
//     sizes it declares, which bound a selector's estimated cost.
//   - check.go: Rules.Check, the rules run against an object (and the
//     stored one on update).
//   - library.go: the Kubernetes CEL functions rules commonly call
//     beyond cel-go's own (lists: isSorted, sum, min, max, indexOf,
//     lastIndexOf; regex: find, findAll).
//
// The package is a dependency of the fake server alone: nothing on the
// client path (rest, reflector, informer) imports it.
package cel
