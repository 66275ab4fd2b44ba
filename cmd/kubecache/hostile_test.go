package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/hostile"
)

// A server that accepts every connection and never answers (neither
// discovery nor the list) makes kubecache get fail after its request
// timeout instead of hanging.
func TestGetAgainstASilentServerFailsAtTheRequestTimeout(t *testing.T) {
	s, err := hostile.NewSilent()
	require.NoError(t, err)
	defer s.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+s.URL()+`"}}]
users: [{name: u, user: {token: t0ken}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600))

	start := time.Now()
	r := runCommand(t, "get", "configmaps", "--kubeconfig", kubeconfig, "--request-timeout", "400ms")
	took := time.Since(start)
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "no answer within 400ms")
	assert.Less(t, took, 10*time.Second, "get gave up after %v", took)
	assert.NotContains(t, r.err.Error()+r.stderr+r.stdout, "t0ken")
}
