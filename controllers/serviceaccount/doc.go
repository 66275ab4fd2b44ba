// Package serviceaccount is the ServiceAccount controller and the root CA
// publisher: every active namespace gets a ServiceAccount named
// "default", recreated if it is deleted, and, when a CA bundle is
// configured, a ConfigMap named kube-root-ca.crt holding it under
// "ca.crt", kept equal to it.
//
// # Files
//
//	controller.go Controller, Options, New, Run, and the reconcile of one namespace
package serviceaccount
