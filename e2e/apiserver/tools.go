//go:build tools

// Package tools pins the control-plane commands the e2e harness builds
// (kube-apiserver, kube-controller-manager, kube-scheduler) so that
// `go mod tidy` keeps every module they need.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
