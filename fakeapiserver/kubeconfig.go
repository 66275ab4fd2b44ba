package fakeapiserver

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
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

// CAPEM returns the PEM certificate of the CA that signed the serving
// certificate (after Start, with TLS): what clients trust, and what a
// controller manager publishes in every namespace as kube-root-ca.crt.
// Nil without TLS.
func (s *Server) CAPEM() []byte { return s.auth.CAPEM() }

// WriteKubeconfig writes Kubeconfig to path with mode 0600 whatever was
// there: a new file in the same directory, renamed over path, so that an
// existing file's wider mode is not kept and a symbolic link at path is
// replaced, not followed (the file holds the server's credentials).
func (s *Server) WriteKubeconfig(path string) error {
	if err := writePrivateFile(path, s.Kubeconfig()); err != nil {
		return fmt.Errorf("fakeapiserver: write kubeconfig: %w", err)
	}
	return nil
}

// writePrivateFile writes data to a new 0600 file beside path and renames
// it over path.
func writePrivateFile(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ClientTLSConfig returns a TLS configuration that trusts the server and,
// with Options.ClientCertificates, presents the generated client
// certificate. It is nil without TLS.
func (s *Server) ClientTLSConfig() *tls.Config {
	return s.auth.ClientTLSConfig()
}
