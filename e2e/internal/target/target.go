package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	clientrest "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// Kind names what the suite runs against.
type Kind string

// The targets, chosen by E2E_TARGET.
const (
	// Real is a kube-apiserver + etcd built and started by
	// e2e/realserver.sh; E2E_REALSERVER_DIR names its directory.
	Real Kind = "real"
	// Fake is kubecache's fake API server, started in the test process.
	Fake Kind = "fake"
	// Kubeconfig is any cluster reached through $KUBECONFIG.
	Kubeconfig Kind = "kubeconfig"
)

// Environment variables read by FromEnv.
const (
	EnvTarget      = "E2E_TARGET"
	EnvRealDir     = "E2E_REALSERVER_DIR"
	EnvKubeconfig  = "KUBECONFIG"
	EnvContext     = "E2E_CONTEXT"
	EnvEtcdURL     = "E2E_ETCD_URL"
	EnvRealScript  = "E2E_REALSERVER_SCRIPT"
	adminToken     = "e2e-admin-token"
	ForbiddenUser  = "e2e-nobody"
	FakeAdminUser  = "kubecache-admin"
	fakeTokenGroup = "system:masters"
)

// ErrUnsupported is wrapped by Restart and Compact on a target that cannot
// do them; the message says what access is needed.
var ErrUnsupported = errors.New("not supported by this target")

// Target is one API server the suite talks to. Its methods are safe for
// concurrent use, but Restart and Compact disturb every client of the
// server: tests that call them do not run in parallel.
type Target struct {
	// Kind is the kind of target.
	Kind Kind
	// KubeconfigPath is a kubeconfig file for the target (for kubectl and
	// the kubecache command).
	KubeconfigPath string
	// Kubeconfig is that file's content.
	Kubeconfig []byte
	// Fake is the in-process server when Kind is Fake.
	Fake *fakeapiserver.Server

	realDir    string
	realScript string
	etcdURL    string
	kcmURL     string
	context    string
	tmpDir     string

	// mu serializes Restart and Compact.
	mu sync.Mutex
}

// FromEnv sets up the target named by E2E_TARGET (default "real"):
//
//   - real: E2E_REALSERVER_DIR is the directory of a server started with
//     `e2e/realserver.sh start DIR` (make e2e does it); its env file gives
//     etcd's URL for compaction, and the script restarts the apiserver.
//   - fake: a fakeapiserver.Server with TLS and a bearer token, started
//     here; close it with Close.
//   - kubeconfig: $KUBECONFIG (context E2E_CONTEXT or the current one);
//     compaction only with E2E_ETCD_URL, no restart.
func FromEnv() (*Target, error) {
	kind := Kind(os.Getenv(EnvTarget))
	if kind == "" {
		kind = Real
	}
	switch kind {
	case Real:
		return newReal(os.Getenv(EnvRealDir))
	case Fake:
		return NewFake()
	case Kubeconfig:
		return newKubeconfig(os.Getenv(EnvKubeconfig), os.Getenv(EnvContext), os.Getenv(EnvEtcdURL))
	default:
		return nil, fmt.Errorf("%s=%q: want real, fake or kubeconfig", EnvTarget, kind)
	}
}

func newReal(dir string) (*Target, error) {
	if dir == "" {
		return nil, fmt.Errorf("%s=real needs %s, the directory of a running server: run `make e2e`, "+
			"or `./e2e/realserver.sh start DIR` and export %s=DIR", EnvTarget, EnvRealDir, EnvRealDir)
	}
	env, err := readEnvFile(filepath.Join(dir, "env"))
	if err != nil {
		return nil, fmt.Errorf("real server in %s: %w", dir, err)
	}
	path := env["REALSERVER_KUBECONFIG"]
	kc, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("real server in %s: %w", dir, err)
	}
	script := os.Getenv(EnvRealScript)
	if script == "" {
		script, err = findRealserverScript()
		if err != nil {
			return nil, err
		}
	}
	return &Target{
		Kind:           Real,
		KubeconfigPath: path,
		Kubeconfig:     kc,
		realDir:        dir,
		realScript:     script,
		etcdURL:        env["ETCD_URL"],
		kcmURL:         env["KCM_URL"],
	}, nil
}

// NewFake starts kubecache's fake API server the way the fake target runs
// it: TLS, one bearer token for an admin in system:masters, and every request
// of the user ForbiddenUser (reached by impersonation) denied, as RBAC
// denies a user without bindings. Close the target to stop it.
func NewFake() (*Target, error) {
	s := fakeapiserver.New(fakeapiserver.Options{
		TLS: true,
		Tokens: map[string]fakeapiserver.User{
			adminToken: {Name: FakeAdminUser, Groups: []string{fakeTokenGroup}},
		},
		// The real server's RBAC gives a user without bindings nothing.
		Forbid: []fakeapiserver.ForbidRule{{User: ForbiddenUser}},
		// As the real server of make e2e (run.sh turns the gate on).
		ShardedListAndWatch: true,
	})
	if err := s.Start(); err != nil {
		s.Close()
		return nil, fmt.Errorf("start the fake API server: %w", err)
	}
	dir, err := os.MkdirTemp("", "kubecache-e2e-fake-")
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("fake target: %w", err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := s.WriteKubeconfig(path); err != nil {
		s.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return &Target{Kind: Fake, KubeconfigPath: path, Kubeconfig: s.Kubeconfig(), Fake: s, tmpDir: dir}, nil
}

func newKubeconfig(path, context, etcdURL string) (*Target, error) {
	if path == "" {
		return nil, fmt.Errorf("%s=kubeconfig needs %s", EnvTarget, EnvKubeconfig)
	}
	if strings.Contains(path, string(os.PathListSeparator)) {
		return nil, fmt.Errorf("%s=%q: the e2e suite takes one kubeconfig file", EnvKubeconfig, path)
	}
	kc, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig target: %w", err)
	}
	return &Target{Kind: Kubeconfig, KubeconfigPath: path, Kubeconfig: kc, context: context, etcdURL: etcdURL}, nil
}

// findRealserverScript finds e2e/realserver.sh from the test's working
// directory (a package directory inside the e2e module).
func findRealserverScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find realserver.sh: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "realserver.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("realserver.sh not found above %s (set %s)", dir, EnvRealScript)
		}
	}
}

// Close stops what FromEnv started: the fake server and its temporary
// files. A real server is stopped by whoever started it.
func (t *Target) Close() {
	if t.Fake != nil {
		t.Fake.Close()
	}
	if t.tmpDir != "" {
		_ = os.RemoveAll(t.tmpDir)
	}
}

// String names the target for logs.
func (t *Target) String() string {
	switch t.Kind {
	case Real:
		return "real kube-apiserver (" + t.realDir + ")"
	case Fake:
		return "fake API server (" + t.Fake.URL() + ")"
	default:
		return "cluster from " + t.KubeconfigPath
	}
}

// RESTConfig returns a client-go configuration for the target. Each call
// returns a new value the caller may change.
func (t *Target) RESTConfig(tb testing.TB) *clientrest.Config {
	tb.Helper()
	cfg, err := t.restConfig()
	if err != nil {
		tb.Fatalf("target %s: %v", t, err)
	}
	return cfg
}

func (t *Target) restConfig() (*clientrest.Config, error) {
	raw, err := clientcmd.Load(t.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("parse kubeconfig %s: %w", t.KubeconfigPath, err)
	}
	cc := clientcmd.NewNonInteractiveClientConfig(*raw, t.context, &clientcmd.ConfigOverrides{}, nil)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", t.KubeconfigPath, err)
	}
	cfg.QPS = -1 // no client-side throttling in tests
	// Otherwise client-go's defaults: typed clients send protobuf bodies
	// and ask for protobuf first, from both targets.
	return cfg, nil
}

// HTTP returns an HTTP client that authenticates to the target (TLS and
// credentials from the kubeconfig) and the server's base URL, for raw
// requests.
func (t *Target) HTTP(tb testing.TB) (*http.Client, string) {
	tb.Helper()
	cfg := t.RESTConfig(tb)
	c, err := clientrest.HTTPClientFor(cfg)
	if err != nil {
		tb.Fatalf("target %s: http client: %v", t, err)
	}
	return c, strings.TrimSuffix(cfg.Host, "/")
}

// CanRestart reports whether Restart works here, and if not, why.
func (t *Target) CanRestart() (bool, string) {
	switch t.Kind {
	case Real, Fake:
		return true, ""
	default:
		return false, "restarting the API server needs control of its process (E2E_TARGET=real or fake)"
	}
}

// CanCompact reports whether Compact works here, and if not, why.
func (t *Target) CanCompact() (bool, string) {
	if t.Kind == Fake || t.etcdURL != "" {
		return true, ""
	}
	return false, "compacting needs etcd's client URL (" + EnvEtcdURL + "), which this target does not give"
}

// HasControlPlane reports whether a kube-controller-manager and a
// kube-scheduler run against the target (a real server's, started with
// `realserver.sh start-controlplane`), and if not, why.
func (t *Target) HasControlPlane() (bool, string) {
	switch {
	case t.Kind == Real && t.kcmURL != "":
		return true, ""
	case t.Kind == Real:
		return false, "the real server runs no kube-controller-manager and kube-scheduler " +
			"(run.sh starts them for the packages that need them; by hand: realserver.sh start-controlplane DIR)"
	default:
		return false, "only a real server started here (E2E_TARGET=real) has a control plane the suite controls"
	}
}

// RequireRestart skips the test when the target cannot restart.
func (t *Target) RequireRestart(tb testing.TB) {
	tb.Helper()
	if ok, why := t.CanRestart(); !ok {
		tb.Skip(why)
	}
}

// RequireCompact skips the test when the target cannot compact.
func (t *Target) RequireCompact(tb testing.TB) {
	tb.Helper()
	if ok, why := t.CanCompact(); !ok {
		tb.Skip(why)
	}
}

// Restart restarts the API server, keeping its data: every watch ends and
// every resourceVersion older than the restart becomes too old to watch
// from. It returns once the server is ready again.
func (t *Target) Restart(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch t.Kind {
	case Fake:
		t.Fake.Restart(true)
		return nil
	case Real:
		return runScript(ctx, t.realScript, "restart-apiserver", t.realDir)
	default:
		_, why := t.CanRestart()
		return fmt.Errorf("restart: %w: %s", ErrUnsupported, why)
	}
}

// Compact discards the history before the current resourceVersion and
// returns it: a watch or an exact list from an older resourceVersion then
// gets 410 Expired — at once on the fake server; on a real one only for
// resources without a watch cache (core events), since the watch cache
// keeps its own history.
func (t *Target) Compact(ctx context.Context) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Kind == Fake {
		return t.Fake.CompactNow(), nil
	}
	if t.etcdURL == "" {
		_, why := t.CanCompact()
		return 0, fmt.Errorf("compact: %w: %s", ErrUnsupported, why)
	}
	return compactEtcd(ctx, t.etcdURL)
}
