package fakeapiserver

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
)

// Kubeconfig returns a kubeconfig for this server (after Start): one
// cluster, user and context named "fakeapiserver", with the CA and the
// token or client certificate when authentication is on.
func (s *Server) Kubeconfig() []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n- name: fakeapiserver\n  cluster:\n")
	fmt.Fprintf(&b, "    server: %s\n", s.URL())
	if ca := s.auth.CAPEM(); len(ca) > 0 {
		fmt.Fprintf(&b, "    certificate-authority-data: %s\n", base64.StdEncoding.EncodeToString(ca))
	}
	b.WriteString("users:\n- name: fakeapiserver\n  user:")
	user := s.auth.KubeconfigUser()
	if len(user) == 0 {
		b.WriteString(" {}\n")
	} else {
		b.WriteString("\n")
		for _, kv := range user {
			fmt.Fprintf(&b, "    %s: %s\n", kv[0], kv[1])
		}
	}
	b.WriteString("contexts:\n- name: fakeapiserver\n  context:\n    cluster: fakeapiserver\n    user: fakeapiserver\n    namespace: default\ncurrent-context: fakeapiserver\npreferences: {}\n")
	return []byte(b.String())
}

// WriteKubeconfig writes Kubeconfig to path (mode 0600).
func (s *Server) WriteKubeconfig(path string) error {
	if err := os.WriteFile(path, s.Kubeconfig(), 0o600); err != nil {
		return fmt.Errorf("fakeapiserver: write kubeconfig: %w", err)
	}
	return nil
}

// ClientTLSConfig returns a TLS configuration that trusts the server and,
// with Options.ClientCertificates, presents the generated client
// certificate. It is nil without TLS.
func (s *Server) ClientTLSConfig() *tls.Config {
	return s.auth.ClientTLSConfig()
}
