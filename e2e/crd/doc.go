// Package crd runs custom resources against the e2e target, the same rows
// on the real kube-apiserver and on the fake server: a CRD's schema
// published in /openapi/v3 and in /openapi/v2 (JSON and protobuf), defaults, the value keywords of structural
// schemas, ratcheting, CEL rules (passing, failing, transition rules, a
// rule that does not compile, a rule too expensive), two versions with a deprecated one, and
// ValidatingAdmissionPolicies (Deny, Warn, params, a policy that does
// not compile) and MutatingAdmissionPolicies (ApplyConfiguration, JSON
// patch).
// Causes are compared as sets: the real server orders them as Go map
// iteration does.
//
// Files (tests only):
//
//	crd_test.go     the rows
//	client_test.go  raw requests, the CRDs' set-up and clean-up
//	policy_test.go  the validating admission policy rows
//	mutating_test.go the mutating admission policy row
//	cost_test.go    a rule too expensive for the estimated cost limit
//	selectable_test.go deprecated versions' warnings, selectableFields
//	manifest_test.go e2eCRD, e2eRootCRD: the manifest of a one-version CRD around its schema
//	libraries_test.go the quantity, semver and format CEL libraries; a messageExpression too expensive
//	root_test.go    rules at the root reading apiVersion, kind, metadata.name and generateName
//	read_schema_test.go objects stored before a CRD change read with its new schema
//	structural_test.go schemas that are not structural, with the real reasons
//	openapi_v2_test.go /openapi/v2 in protobuf: client-go's discovery reads it,
//	                gnostic's message of the JSON document, the v2 narrowing
package crd
