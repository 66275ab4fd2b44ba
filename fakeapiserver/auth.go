package fakeapiserver

import (
	"crypto/tls"
	"net/http"
)

// authorize applies the forbid rules (none yet).
func (s *Server) authorize(r *http.Request, info requestInfo, res *Resource) error { return nil }

// serverTLSConfig returns the TLS configuration when TLS is on (not yet).
func (s *Server) serverTLSConfig() (*tls.Config, error) { return nil, nil }

// caPEM returns the CA certificate clients should trust (TLS only).
func (s *Server) caPEM() []byte { return nil }

// kubeconfigUser returns the user entries of the kubeconfig.
func (s *Server) kubeconfigUser() [][2]string { return nil }
