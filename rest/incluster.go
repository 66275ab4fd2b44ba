package rest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// ServiceAccountDir is where Kubernetes mounts a pod's service account
// token, CA and namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// ErrNotInCluster is returned (wrapped) by InClusterConfig outside a pod:
// KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is not set.
var ErrNotInCluster = errors.New("not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set")

// InClusterConfig returns the Config of a program running in a pod: the
// server from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the
// service account's token file (re-read as the kubelet rotates it) and
// CA, and the namespace from POD_NAMESPACE or else the service account's
// namespace file.
func InClusterConfig() (*Config, error) {
	return inClusterConfig(os.Getenv, ServiceAccountDir)
}

// inClusterConfig is InClusterConfig with the environment and the service
// account directory as parameters, for tests.
func inClusterConfig(getenv func(string) string, saDir string) (*Config, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("in-cluster config: %w", ErrNotInCluster)
	}
	tokenFile := filepath.Join(saDir, "token")
	if _, err := readTokenFile(tokenFile); err != nil {
		return nil, fmt.Errorf("in-cluster config: %w", err)
	}
	caFile := filepath.Join(saDir, "ca.crt")
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("in-cluster config: CA: %w", err)
	}
	cfg := &Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: tokenFile,
		TLS:             TLSConfig{CAData: ca},
	}
	if ns := getenv("POD_NAMESPACE"); ns != "" {
		cfg.Namespace = ns
	} else if b, err := os.ReadFile(filepath.Join(saDir, "namespace")); err == nil {
		cfg.Namespace = strings.TrimSpace(string(b))
	}
	return cfg, nil
}
