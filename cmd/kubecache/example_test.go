package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// The command run against the fake API server, as the tests run it: a
// fake server with two ConfigMaps, its kubeconfig, then kubecache get —
// and kubectl's answer to a resource the server does not have. (The
// server's clock is fixed and its UIDs seeded, for a stable output.)
func Example() {
	clock := fakeapiserver.NewFakeClock(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))
	s := fakeapiserver.New(fakeapiserver.Options{Clock: clock, Seed: 1})
	if err := s.Start(); err != nil {
		panic(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Load(ctx, []byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {color: blue}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: features, namespace: default}
`)); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "kubecache-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := s.WriteKubeconfig(kubeconfig); err != nil {
		panic(err)
	}

	_ = run(ctx, []string{"get", "configmaps", "-o", "name", "--kubeconfig", kubeconfig}, os.Stdout, os.Stdout)
	_ = run(ctx, []string{"get", "cm", "settings", "-o", "yaml", "--kubeconfig", kubeconfig}, os.Stdout, os.Stdout)
	_ = run(ctx, []string{"get", "gizmos", "--kubeconfig", kubeconfig}, os.Stdout, os.Stdout)
	// Output:
	// configmap/features
	// configmap/settings
	// apiVersion: v1
	// data:
	//   color: blue
	// kind: ConfigMap
	// metadata:
	//   creationTimestamp: "2030-01-01T12:00:00Z"
	//   name: settings
	//   namespace: default
	//   resourceVersion: "9"
	//   uid: 7b30842c-870c-460e-992b-6fb148078c91
	// error: the server doesn't have a resource type "gizmos"
}
