package rest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// KubeconfigOptions chooses the kubeconfig files to read and the context to
// use, like kubectl's --kubeconfig and --context flags.
type KubeconfigOptions struct {
	// Path is an explicit kubeconfig file, which must exist. When empty,
	// the files listed in $KUBECONFIG (separated by the OS list separator,
	// ':' on Unix) are merged, and without $KUBECONFIG ~/.kube/config is
	// read.
	Path string
	// Context names the context to use; empty means current-context.
	Context string
}

// ErrNoKubeconfig is returned (wrapped) by LoadKubeconfig when there is no
// kubeconfig file to read at all.
var ErrNoKubeconfig = errors.New("no kubeconfig found")

// ErrContextNotFound, ErrClusterNotFound and ErrUserNotFound are wrapped by
// LoadKubeconfig's error when the chosen context, or the cluster or user it
// names, is not in any kubeconfig file.
var (
	ErrContextNotFound = errors.New("context not found")
	ErrClusterNotFound = errors.New("cluster not found")
	ErrUserNotFound    = errors.New("user not found")
)

// notFound wraps sentinel in an error whose text stays "<what> "<name>" not found".
type notFound struct {
	sentinel error
	what     string
	name     string
}

func (e *notFound) Error() string { return fmt.Sprintf("%s %q not found", e.what, e.name) }
func (e *notFound) Unwrap() error { return e.sentinel }

// LoadKubeconfig reads kubeconfig files the way kubectl does and returns the
// Config of the chosen context: its cluster (server, CA, TLS options, proxy),
// its user (client certificate, token, token file, exec plugin,
// impersonation, basic auth) and its namespace.
//
// With several files (KUBECONFIG=a:b), a cluster, user or context name
// defined in more than one file is taken from the first, as is
// current-context; files in the list that do not exist are skipped. Relative
// paths inside a file (certificate-authority, client-certificate,
// client-key, tokenFile, an exec command containing a slash) are relative to
// that file's directory. Certificate and token files are read now, so a
// missing or unreadable one is reported here; the token file is read again
// while the client runs.
//
// Errors name the file and the field: `kubeconfig /x/config: context "foo":
// cluster "bar" not found`.
func LoadKubeconfig(opts KubeconfigOptions) (*Config, error) {
	return loadKubeconfig(opts, os.Getenv)
}

// kubeconfigFile is the on-disk shape of a kubeconfig (kind: Config, v1).
type kubeconfigFile struct {
	CurrentContext string         `json:"current-context"`
	Clusters       []namedCluster `json:"clusters"`
	Users          []namedUser    `json:"users"`
	Contexts       []namedContext `json:"contexts"`
}

type namedCluster struct {
	Name    string       `json:"name"`
	Cluster kubecCluster `json:"cluster"`
}

type namedUser struct {
	Name string    `json:"name"`
	User kubecUser `json:"user"`
}

type namedContext struct {
	Name    string       `json:"name"`
	Context kubecContext `json:"context"`
}

type kubecCluster struct {
	Server                   string           `json:"server"`
	TLSServerName            string           `json:"tls-server-name"`
	InsecureSkipTLSVerify    bool             `json:"insecure-skip-tls-verify"`
	CertificateAuthority     string           `json:"certificate-authority"`
	CertificateAuthorityData string           `json:"certificate-authority-data"`
	ProxyURL                 string           `json:"proxy-url"`
	DisableCompression       bool             `json:"disable-compression"`
	Extensions               []namedExtension `json:"extensions"`
}

type namedExtension struct {
	Name      string          `json:"name"`
	Extension json.RawMessage `json:"extension"`
}

// execClusterExtension is the cluster extension whose content is handed to
// exec plugins as spec.cluster.config.
const execClusterExtension = "client.authentication.k8s.io/exec"

type kubecUser struct {
	ClientCertificate     string              `json:"client-certificate"`
	ClientCertificateData string              `json:"client-certificate-data"`
	ClientKey             string              `json:"client-key"`
	ClientKeyData         string              `json:"client-key-data"`
	Token                 string              `json:"token"`
	TokenFile             string              `json:"tokenFile"`
	Impersonate           string              `json:"as"`
	ImpersonateUID        string              `json:"as-uid"`
	ImpersonateGroups     []string            `json:"as-groups"`
	ImpersonateUserExtra  map[string][]string `json:"as-user-extra"`
	Username              string              `json:"username"`
	Password              string              `json:"password"`
	AuthProvider          *struct {
		Name string `json:"name"`
	} `json:"auth-provider"`
	Exec *ExecConfig `json:"exec"`
}

type kubecContext struct {
	Cluster   string `json:"cluster"`
	User      string `json:"user"`
	Namespace string `json:"namespace"`
}

// sourced is a named kubeconfig entry with the file that defined it.
type sourced[T any] struct {
	file string
	val  T
}

// mergedKubeconfig is several kubeconfig files merged by name.
type mergedKubeconfig struct {
	files          []string
	currentContext string
	clusters       map[string]sourced[kubecCluster]
	users          map[string]sourced[kubecUser]
	contexts       map[string]sourced[kubecContext]
}

func loadKubeconfig(opts KubeconfigOptions, getenv func(string) string) (*Config, error) {
	paths, explicit, err := kubeconfigPaths(opts, getenv)
	if err != nil {
		return nil, err
	}
	m := &mergedKubeconfig{
		clusters: map[string]sourced[kubecCluster]{},
		users:    map[string]sourced[kubecUser]{},
		contexts: map[string]sourced[kubecContext]{},
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			if !explicit && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("kubeconfig %s: %w", p, err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w", p, err)
		}
		if err := m.add(abs, data); err != nil {
			return nil, err
		}
	}
	if len(m.files) == 0 {
		return nil, fmt.Errorf("kubeconfig %s: %w", strings.Join(paths, string(filepath.ListSeparator)), ErrNoKubeconfig)
	}
	return m.resolve(opts.Context)
}

// kubeconfigPaths lists the files to read; explicit is true when the caller
// named one file, which then must exist.
func kubeconfigPaths(opts KubeconfigOptions, getenv func(string) string) (paths []string, explicit bool, err error) {
	if opts.Path != "" {
		return []string{opts.Path}, true, nil
	}
	if env := getenv("KUBECONFIG"); env != "" {
		seen := map[string]bool{}
		for _, p := range filepath.SplitList(env) {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			paths = append(paths, p)
		}
		if len(paths) > 0 {
			return paths, false, nil
		}
	}
	home := getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return nil, false, fmt.Errorf("kubeconfig: %w: $KUBECONFIG is empty and the home directory is unknown", ErrNoKubeconfig)
		}
	}
	return []string{filepath.Join(home, ".kube", "config")}, false, nil
}

// add parses one file and merges its entries in; names already present
// from an earlier file are kept.
func (m *mergedKubeconfig) add(file string, data []byte) error {
	var kc kubeconfigFile
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", file, err)
	}
	m.files = append(m.files, file)
	if m.currentContext == "" {
		m.currentContext = kc.CurrentContext
	}
	dir := filepath.Dir(file)
	if err := mergeNamed(file, "clusters", kc.Clusters, m.clusters, func(c namedCluster) (string, kubecCluster) {
		c.Cluster.CertificateAuthority = resolvePath(dir, c.Cluster.CertificateAuthority)
		return c.Name, c.Cluster
	}); err != nil {
		return err
	}
	if err := mergeNamed(file, "users", kc.Users, m.users, func(u namedUser) (string, kubecUser) {
		u.User.ClientCertificate = resolvePath(dir, u.User.ClientCertificate)
		u.User.ClientKey = resolvePath(dir, u.User.ClientKey)
		u.User.TokenFile = resolvePath(dir, u.User.TokenFile)
		if u.User.Exec != nil && strings.ContainsRune(u.User.Exec.Command, filepath.Separator) {
			u.User.Exec.Command = resolvePath(dir, u.User.Exec.Command)
		}
		return u.Name, u.User
	}); err != nil {
		return err
	}
	return mergeNamed(file, "contexts", kc.Contexts, m.contexts, func(c namedContext) (string, kubecContext) {
		return c.Name, c.Context
	})
}

// mergeNamed adds a file's list of named entries to the merged map. A name
// repeated within one file, or an empty name, is an error; a name already
// taken by an earlier file is skipped.
func mergeNamed[E, V any](file, field string, list []E, into map[string]sourced[V], split func(E) (string, V)) error {
	inFile := map[string]bool{}
	for i, e := range list {
		name, v := split(e)
		if name == "" {
			return fmt.Errorf("kubeconfig %s: %s[%d]: name is empty", file, field, i)
		}
		if inFile[name] {
			return fmt.Errorf("kubeconfig %s: %s: name %q appears twice", file, field, name)
		}
		inFile[name] = true
		if _, ok := into[name]; !ok {
			into[name] = sourced[V]{file: file, val: v}
		}
	}
	return nil
}

// resolvePath makes a relative path from a kubeconfig file absolute against
// the file's directory.
func resolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// resolve builds the Config of one context.
func (m *mergedKubeconfig) resolve(contextName string) (*Config, error) {
	files := strings.Join(m.files, string(filepath.ListSeparator))
	if contextName == "" {
		contextName = m.currentContext
	}
	if contextName == "" {
		return nil, fmt.Errorf("kubeconfig %s: current-context is not set and no context was chosen", files)
	}
	ctx, ok := m.contexts[contextName]
	if !ok {
		return nil, fmt.Errorf("kubeconfig %s: %w", files, &notFound{ErrContextNotFound, "context", contextName})
	}
	where := fmt.Sprintf("kubeconfig %s: context %q", ctx.file, contextName)
	if ctx.val.Cluster == "" {
		return nil, fmt.Errorf("%s: cluster is not set", where)
	}
	cl, ok := m.clusters[ctx.val.Cluster]
	if !ok {
		return nil, fmt.Errorf("%s: %w", where, &notFound{ErrClusterNotFound, "cluster", ctx.val.Cluster})
	}
	cfg := &Config{Namespace: ctx.val.Namespace}
	if err := applyCluster(cfg, cl.val); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: cluster %q: %w", cl.file, ctx.val.Cluster, err)
	}
	if ctx.val.User != "" {
		u, ok := m.users[ctx.val.User]
		if !ok {
			return nil, fmt.Errorf("%s: %w", where, &notFound{ErrUserNotFound, "user", ctx.val.User})
		}
		if err := applyUser(cfg, u.val); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: user %q: %w", u.file, ctx.val.User, err)
		}
		if cfg.Exec != nil {
			for _, ext := range cl.val.Extensions {
				if ext.Name == execClusterExtension {
					cfg.Exec.ClusterConfig = ext.Extension
				}
			}
		}
	}
	return cfg, nil
}

// applyCluster copies a kubeconfig cluster into cfg, reading and checking
// its CA.
func applyCluster(cfg *Config, c kubecCluster) error {
	if c.Server == "" {
		return errors.New("server is not set")
	}
	host, err := normalizeHost(c.Server)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	cfg.Host = host
	cfg.TLS.Insecure = c.InsecureSkipTLSVerify
	cfg.TLS.ServerName = c.TLSServerName
	cfg.DisableCompression = c.DisableCompression
	if c.ProxyURL != "" {
		if _, err := parseProxyURL(c.ProxyURL); err != nil {
			return fmt.Errorf("proxy-url: %w", err)
		}
		cfg.ProxyURL = c.ProxyURL
	}
	ca, err := dataOrFile(c.CertificateAuthorityData, "certificate-authority-data", c.CertificateAuthority, "certificate-authority")
	if err != nil {
		return err
	}
	if ca != nil {
		if !x509.NewCertPool().AppendCertsFromPEM(ca) {
			field := "certificate-authority-data"
			if c.CertificateAuthorityData == "" {
				field = "certificate-authority " + c.CertificateAuthority
			}
			return fmt.Errorf("%s: no PEM certificate found", field)
		}
		cfg.TLS.CAData = ca
	}
	return nil
}

// applyUser copies a kubeconfig user into cfg, reading and checking its
// certificate, key and token file.
func applyUser(cfg *Config, u kubecUser) error {
	if u.AuthProvider != nil {
		return fmt.Errorf("auth-provider %q is not supported: use an exec credential plugin", u.AuthProvider.Name)
	}
	cert, err := dataOrFile(u.ClientCertificateData, "client-certificate-data", u.ClientCertificate, "client-certificate")
	if err != nil {
		return err
	}
	key, err := dataOrFile(u.ClientKeyData, "client-key-data", u.ClientKey, "client-key")
	if err != nil {
		return err
	}
	switch {
	case cert != nil && key == nil:
		return errors.New("client-certificate is set but client-key is not")
	case key != nil && cert == nil:
		return errors.New("client-key is set but client-certificate is not")
	case cert != nil:
		if _, err := tls.X509KeyPair(cert, key); err != nil {
			return fmt.Errorf("client-certificate and client-key: %w", err)
		}
		cfg.TLS.CertData, cfg.TLS.KeyData = cert, key
	}
	cfg.BearerToken = u.Token
	if u.TokenFile != "" {
		if _, err := readTokenFile(u.TokenFile); err != nil {
			return fmt.Errorf("tokenFile: %w", err)
		}
		cfg.BearerTokenFile = u.TokenFile
	}
	cfg.Username, cfg.Password = u.Username, u.Password
	cfg.Impersonate = ImpersonationConfig{
		UserName: u.Impersonate,
		UID:      u.ImpersonateUID,
		Groups:   u.ImpersonateGroups,
		Extra:    u.ImpersonateUserExtra,
	}
	if u.Exec != nil {
		if err := u.Exec.validate(); err != nil {
			return fmt.Errorf("exec: %w", err)
		}
		cfg.Exec = u.Exec
	}
	return nil
}

// dataOrFile returns the base64-decoded data field if set, else the content
// of the file field if set, else nil.
func dataOrFile(data, dataField, file, fileField string) ([]byte, error) {
	if data != "" {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dataField, err)
		}
		return b, nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileField, err)
	}
	return b, nil
}

// normalizeHost checks a server URL; a bare "host:port" means https.
func normalizeHost(server string) (string, error) {
	if !strings.Contains(server, "://") {
		server = "https://" + server
	}
	u, err := url.Parse(server)
	if err != nil {
		return "", err
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return "", fmt.Errorf("%q has no host", server)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// parseProxyURL checks a proxy URL: http, https or socks5, which is what
// the standard library's transport speaks.
func parseProxyURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		// The raw URL may hold a proxy password: keep it out of the error.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	switch u.Scheme {
	case "http", "https", "socks5":
	default:
		return nil, fmt.Errorf("scheme %q is not http, https or socks5", u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q has no host", u.Redacted())
	}
	return u, nil
}
