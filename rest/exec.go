package rest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
)

// This file runs exec credential plugins (kubeconfig users[].user.exec):
// cloud CLIs and helpers that print a token or a client certificate. It is
// off the learner's path; a Config without Exec never reaches it.

// The ExecCredential API versions a plugin may speak.
const (
	ExecAPIVersionV1      = "client.authentication.k8s.io/v1"
	ExecAPIVersionV1beta1 = "client.authentication.k8s.io/v1beta1"
)

// The interactive modes of an exec plugin. kubecache never gives a plugin a
// terminal, so a plugin that needs one (Always) cannot run.
const (
	ExecInteractiveNever       = "Never"
	ExecInteractiveIfAvailable = "IfAvailable"
	ExecInteractiveAlways      = "Always"
)

// ErrExecPluginNotFound is returned (wrapped, with the plugin's installHint)
// when an exec plugin's command does not exist.
var ErrExecPluginNotFound = errors.New("exec credential plugin not found")

// ExecConfig describes an exec credential plugin as a kubeconfig user's
// exec field does. The plugin runs with the client's environment plus Env
// and KUBERNETES_EXEC_INFO, without stdin; it prints an ExecCredential on
// stdout. Its credential is kept until its expirationTimestamp, and the
// plugin runs again after the server rejects it with a 401.
type ExecConfig struct {
	// APIVersion is ExecAPIVersionV1 or ExecAPIVersionV1beta1.
	APIVersion string `json:"apiVersion"`
	// Command is the program; a relative path containing a slash is
	// relative to the kubeconfig file, a bare name is looked up in $PATH.
	Command string       `json:"command"`
	Args    []string     `json:"args"`
	Env     []ExecEnvVar `json:"env"`
	// InstallHint is shown when Command cannot be found.
	InstallHint string `json:"installHint"`
	// ProvideClusterInfo passes the cluster (server, CA, TLS options) to
	// the plugin in KUBERNETES_EXEC_INFO.
	ProvideClusterInfo bool `json:"provideClusterInfo"`
	// InteractiveMode is Never, IfAvailable or Always; required for v1.
	InteractiveMode string `json:"interactiveMode"`
	// ClusterConfig is the cluster's client.authentication.k8s.io/exec
	// extension, passed to the plugin as spec.cluster.config.
	ClusterConfig json.RawMessage `json:"-"`
}

// ExecEnvVar is one environment variable set for an exec plugin.
type ExecEnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// validate checks the fields a kubeconfig must set.
func (e *ExecConfig) validate() error {
	if e.Command == "" {
		return errors.New("command is not set")
	}
	switch e.APIVersion {
	case ExecAPIVersionV1:
		if e.InteractiveMode == "" {
			return fmt.Errorf("interactiveMode must be set for %s", ExecAPIVersionV1)
		}
	case ExecAPIVersionV1beta1:
	case "":
		return errors.New("apiVersion is not set")
	default:
		return fmt.Errorf("apiVersion %q is not %s or %s", e.APIVersion, ExecAPIVersionV1, ExecAPIVersionV1beta1)
	}
	switch e.InteractiveMode {
	case "", ExecInteractiveNever, ExecInteractiveIfAvailable, ExecInteractiveAlways:
	default:
		return fmt.Errorf("interactiveMode %q is not Never, IfAvailable or Always", e.InteractiveMode)
	}
	for i, v := range e.Env {
		if v.Name == "" {
			return fmt.Errorf("env[%d]: name is empty", i)
		}
	}
	return nil
}

// execCredential is the ExecCredential object exchanged with a plugin.
type execCredential struct {
	APIVersion string                `json:"apiVersion"`
	Kind       string                `json:"kind"`
	Spec       execCredentialSpec    `json:"spec"`
	Status     *execCredentialStatus `json:"status,omitempty"`
}

type execCredentialSpec struct {
	Cluster     *execCluster `json:"cluster,omitempty"`
	Interactive bool         `json:"interactive"`
}

type execCluster struct {
	Server                   string          `json:"server"`
	TLSServerName            string          `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool            `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthorityData []byte          `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string          `json:"proxy-url,omitempty"`
	DisableCompression       bool            `json:"disable-compression,omitempty"`
	Config                   json.RawMessage `json:"config,omitempty"`
}

type execCredentialStatus struct {
	ExpirationTimestamp   *meta.Time `json:"expirationTimestamp,omitempty"`
	Token                 string     `json:"token,omitempty"`
	ClientCertificateData string     `json:"clientCertificateData,omitempty"`
	ClientKeyData         string     `json:"clientKeyData,omitempty"`
}

// execCred is a credential a plugin produced.
type execCred struct {
	token  string
	cert   *tls.Certificate
	expiry time.Time // zero: never expires
	gen    uint64
}

// execAuth runs a plugin when a credential is needed and caches what it
// printed.
type execAuth struct {
	cfg   ExecConfig
	info  string // KUBERNETES_EXEC_INFO
	clock clock.Clock
	log   *slog.Logger
	// certChanged is called when a new credential carries a client
	// certificate, so pooled connections made with the old one are dropped.
	certChanged func()

	// mu guards cur and gen; it is held while the plugin runs, so
	// concurrent requests share one run.
	mu  sync.Mutex
	cur *execCred
	gen uint64
}

// maxExecOutput bounds what is read from a plugin's stdout and stderr.
const maxExecOutput = 1 << 20

func newExecAuth(cfg *Config, clock clock.Clock, log *slog.Logger) (*execAuth, error) {
	e := *cfg.Exec
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	in := execCredential{
		APIVersion: e.APIVersion,
		Kind:       "ExecCredential",
	}
	if e.ProvideClusterInfo {
		ca := cfg.TLS.CAData
		if ca == nil && cfg.TLS.CAFile != "" {
			b, err := os.ReadFile(cfg.TLS.CAFile)
			if err != nil {
				return nil, fmt.Errorf("exec: cluster info: %w", err)
			}
			ca = b
		}
		in.Spec.Cluster = &execCluster{
			Server:                   cfg.Host,
			TLSServerName:            cfg.TLS.ServerName,
			InsecureSkipTLSVerify:    cfg.TLS.Insecure,
			CertificateAuthorityData: ca,
			ProxyURL:                 cfg.ProxyURL,
			DisableCompression:       cfg.DisableCompression,
			Config:                   e.ClusterConfig,
		}
	}
	info, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("exec: %w", err)
	}
	return &execAuth{cfg: e, info: string(info), clock: clock, log: log}, nil
}

// credential returns the cached credential, or runs the plugin when there
// is none or it has expired.
func (a *execAuth) credential(ctx context.Context) (*execCred, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil && (a.cur.expiry.IsZero() || a.clock.Now().Before(a.cur.expiry)) {
		return a.cur, nil
	}
	cred, err := a.run(ctx)
	if err != nil {
		return nil, err
	}
	a.gen++
	cred.gen = a.gen
	a.cur = cred
	if cred.cert != nil && a.certChanged != nil {
		a.certChanged()
	}
	return cred, nil
}

// token implements tokenSource.
func (a *execAuth) token(ctx context.Context) (string, uint64, error) {
	c, err := a.credential(ctx)
	if err != nil {
		return "", 0, err
	}
	return c.token, c.gen, nil
}

// rejected drops the credential of generation gen after a 401, so the next
// request runs the plugin again.
func (a *execAuth) rejected(gen uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil && a.cur.gen == gen {
		a.cur = nil
	}
}

// clientCertificate is the tls.Config hook that presents the plugin's
// certificate (or none when the plugin gives only a token).
func (a *execAuth) clientCertificate(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	c, err := a.credential(info.Context())
	if err != nil {
		return nil, err
	}
	if c.cert == nil {
		return &tls.Certificate{}, nil
	}
	return c.cert, nil
}

// run executes the plugin once and parses what it printed. Errors never
// include the plugin's stdout, which holds the credential.
func (a *execAuth) run(ctx context.Context) (*execCred, error) {
	name := a.cfg.Command
	if a.cfg.InteractiveMode == ExecInteractiveAlways {
		return nil, fmt.Errorf("exec plugin %q: interactiveMode is Always but kubecache runs plugins without a terminal", name)
	}
	cmd := exec.CommandContext(ctx, name, a.cfg.Args...)
	cmd.Env = os.Environ()
	for _, v := range a.cfg.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+a.info)
	stdout := &limitedBuffer{max: maxExecOutput}
	stderr := &limitedBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	a.log.Debug("running exec credential plugin", "command", name)
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			msg := fmt.Errorf("%w: %q", ErrExecPluginNotFound, name)
			if a.cfg.InstallHint != "" {
				msg = fmt.Errorf("%w\n\n%s", msg, a.cfg.InstallHint)
			}
			return nil, msg
		}
		if text := errorBodyText(stderr.Bytes()); text != "" {
			return nil, fmt.Errorf("exec plugin %q: %w: %s", name, err, text)
		}
		return nil, fmt.Errorf("exec plugin %q: %w", name, err)
	}
	if stdout.overflow {
		return nil, fmt.Errorf("exec plugin %q: output is larger than %d bytes", name, maxExecOutput)
	}
	return a.parse(stdout.Bytes())
}

// parse checks and decodes a plugin's ExecCredential.
func (a *execAuth) parse(out []byte) (*execCred, error) {
	name := a.cfg.Command
	var ec execCredential
	if err := json.Unmarshal(out, &ec); err != nil {
		return nil, fmt.Errorf("exec plugin %q: output is not an ExecCredential: %w", name, err)
	}
	switch {
	case ec.Kind != "ExecCredential":
		return nil, fmt.Errorf("exec plugin %q: output kind is %q, want ExecCredential", name, ec.Kind)
	case ec.APIVersion != a.cfg.APIVersion:
		return nil, fmt.Errorf("exec plugin %q: output apiVersion is %q, want %q", name, ec.APIVersion, a.cfg.APIVersion)
	case ec.Status == nil:
		return nil, fmt.Errorf("exec plugin %q: output has no status", name)
	}
	st := ec.Status
	cred := &execCred{token: st.Token}
	if st.ExpirationTimestamp != nil {
		cred.expiry = st.ExpirationTimestamp.Time
	}
	switch {
	case (st.ClientCertificateData == "") != (st.ClientKeyData == ""):
		return nil, fmt.Errorf("exec plugin %q: status has only one of clientCertificateData and clientKeyData", name)
	case st.ClientCertificateData != "":
		cert, err := tls.X509KeyPair([]byte(st.ClientCertificateData), []byte(st.ClientKeyData))
		if err != nil {
			return nil, fmt.Errorf("exec plugin %q: client certificate: %w", name, err)
		}
		cred.cert = &cert
	case st.Token == "":
		return nil, fmt.Errorf("exec plugin %q: status has neither a token nor a client certificate", name)
	}
	return cred, nil
}

// limitedBuffer collects up to max bytes and notes whether more came. It
// holds its buffer in a field rather than embedding it: an embedded
// bytes.Buffer would lend it ReadFrom, which io.Copy (and so os/exec)
// prefers to Write, and the bound would never be applied.
type limitedBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

// Write keeps what fits and reports all of p written, so the plugin never
// blocks on a full pipe.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.buf.Len(); len(p) > room {
		p = p[:max(room, 0)]
		b.overflow = true
	}
	b.buf.Write(p)
	return n, nil
}

// Bytes returns what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }
