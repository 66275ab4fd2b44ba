package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/kubelet"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
)

const serveAbout = `Run kubecache's fake API server as a process, for kubectl, client-go
programs or tests in any language: an in-memory server with the real list
and watch semantics, discovery for kubectl, and fault injection.

It prints one line when it is ready, with its URL and the kubeconfig it
wrote, and stops cleanly on Ctrl-C (SIGINT) or SIGTERM.

With --controllers and --nodes it is a cluster in a box: the named
controllers (deployment, disruption, endpointslice, job, nodelifecycle,
replicaset, scheduler, serviceaccount, or all) and N simulated nodes run
beside it as its clients, so a Deployment gets its ReplicaSet, pods,
scheduling and readiness. With --leader-elect the controllers run only
while they hold the kube-system/kube-controller-manager Lease, as
kube-controller-manager's do; if another holder takes it, serve exits.

Examples:
  kubecache serve --kubeconfig-out /tmp/fake.kubeconfig
  kubecache serve --controllers=all --nodes=3 --kubeconfig-out /tmp/fake.kubeconfig
  KUBECONFIG=/tmp/fake.kubeconfig kubectl get ns
  kubecache serve --listen 127.0.0.1:0 --tls --token s3cret --load ./manifests --kubeconfig-out kc -v`

// defaultListen is where serve listens without --listen.
const defaultListen = "127.0.0.1:6443"

// stringsFlag is a flag that may be given several times.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// serve is "kubecache serve".
func (a *app) serve(ctx context.Context, args []string) error {
	fs := newFlagSet("serve", "kubecache serve [flags]", serveAbout)
	var (
		listen, kubeconfigOut, token string
		useTLS, admin, verbose       bool
		loads                        stringsFlag
		controllerList, nodeCount    string
		leaderElect                  bool
		election                     controllers.LeaderElection
	)
	fs.stringVar(&listen, "listen", "", defaultListen, "address to listen on; 127.0.0.1:0 picks a free port")
	fs.stringVar(&kubeconfigOut, "kubeconfig-out", "", "", "write a kubeconfig for the server to this file")
	fs.boolVar(&useTLS, "tls", "", false, "serve HTTPS with a self-signed CA, written into the kubeconfig (and, with the serviceaccount controller, published as kube-root-ca.crt)")
	fs.stringVar(&token, "token", "", "", "require this bearer token (written into the kubeconfig)")
	fs.Var(&loads, "load", "YAML or JSON manifests (a file or a directory) to create at start; may be repeated")
	fs.boolVar(&admin, "admin", "", false, "serve the fault-injection endpoint under /kubecache-admin/ (with --token, it takes the same token)")
	fs.boolVar(&verbose, "verbose", "v", false, "log every request on stderr")
	fs.stringVar(&controllerList, "controllers", "", "", "controllers to run beside the server: all, or a list of "+strings.Join(controllers.All, ", ")+` ("all,-scheduler" leaves one out)`)
	fs.stringVar(&nodeCount, "nodes", "", "0", "how many simulated nodes to run")
	fs.boolVar(&leaderElect, "leader-elect", "", false, "run the controllers only while they hold a Lease, as kube-controller-manager does")
	fs.stringVar(&election.Namespace, "leader-elect-resource-namespace", "", "kube-system", "namespace of the --leader-elect Lease")
	fs.stringVar(&election.Name, "leader-elect-resource-name", "", "kube-controller-manager", "name of the --leader-elect Lease")
	fs.durationVar(&election.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a Lease not renewed stays held")
	fs.durationVar(&election.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader tries to renew before it gives up")
	fs.durationVar(&election.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "how often candidates try to take or renew the Lease")
	if _, err := a.parse(fs, args, 0, 0); err != nil {
		return err
	}
	names, err := controllers.ParseNames(controllerList)
	if err != nil {
		return fmt.Errorf("--controllers: %w", err)
	}
	nodes, err := strconv.Atoi(nodeCount)
	if err != nil || nodes < 0 {
		return fmt.Errorf("--nodes: %q is not a number of nodes", nodeCount)
	}

	con := newConsole(a.stdout, a.stderr)
	// New Nodes get the real server's not-ready taint only when the node
	// lifecycle controller runs to remove it.
	opts := fakeapiserver.Options{Addr: listen, Admin: admin, TLS: useTLS, NoNodeTaint: !slices.Contains(names, controllers.NodeLifecycle)}
	if token != "" {
		opts.Tokens = map[string]fakeapiserver.User{token: {Name: "admin", Groups: []string{"system:masters"}}}
		opts.AdminToken = token
	}
	if verbose {
		opts.Logger = slog.New(slog.NewTextHandler(stderrWriter{con}, nil))
	}
	// pods/log is answered by the simulated nodes, once they run.
	var sim atomic.Pointer[kubelet.Kubelet]
	opts.PodLogs = func(namespace, pod, container string) ([]byte, bool) {
		if k := sim.Load(); k != nil {
			return k.LogText(namespace, pod, container)
		}
		return nil, false
	}
	s := fakeapiserver.New(opts)
	defer s.Close()
	if len(loads) > 0 {
		if err := loadManifests(ctx, s, loads); err != nil {
			return fmt.Errorf("load manifests: %w", err)
		}
	}

	if err := s.Start(); err != nil {
		return listenError(err)
	}
	where := "no kubeconfig written (use --kubeconfig-out FILE)"
	if kubeconfigOut != "" {
		if err := s.WriteKubeconfig(kubeconfigOut); err != nil {
			return err
		}
		where = "kubeconfig " + kubeconfigOut
	}
	con.outf("kubecache serve: fake API server ready at %s (%s)", s.URL(), where)
	var failed <-chan error
	if len(names) > 0 || nodes > 0 {
		// With TLS, the serviceaccount controller publishes the server's
		// CA as kube-root-ca.crt, as a real controller manager does.
		mo := controllers.Options{Controllers: names, Nodes: nodes, Logger: opts.Logger, RootCA: string(s.CAPEM())}
		if leaderElect {
			mo.LeaderElection = &election
		}
		stop, errs, err := runControllers(ctx, s, mo, &sim)
		if err != nil {
			return err
		}
		defer stop()
		failed = errs
		line := fmt.Sprintf("kubecache serve: controllers %s, %d simulated nodes", strings.Join(names, ","), nodes)
		if leaderElect {
			line += fmt.Sprintf(", leader election on Lease %s/%s", election.Namespace, election.Name)
		}
		con.outf("%s", line)
	}
	select {
	case <-ctx.Done():
	case err := <-failed:
		return fmt.Errorf("controllers stopped: %w", err)
	}
	con.outf("kubecache serve: shutting down")
	return nil
}

// runControllers starts the controllers and nodes opts names as clients
// of s, and stores the nodes in sim; stop ends them and waits. failed
// receives the error that stopped them (the Lease lost, say) if they
// stop by themselves.
func runControllers(ctx context.Context, s *fakeapiserver.Server, opts controllers.Options, sim *atomic.Pointer[kubelet.Kubelet]) (stop func(), failed <-chan error, err error) {
	dir, err := os.MkdirTemp("", "kubecache-serve-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kubeconfig")
	if err := s.WriteKubeconfig(path); err != nil {
		return nil, nil, err
	}
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: path})
	if err != nil {
		return nil, nil, err
	}
	cfg.QPS = -1
	client, err := rest.NewClient(cfg)
	if err != nil {
		return nil, nil, err
	}
	m, err := controllers.New(client, opts)
	if err != nil {
		return nil, nil, err
	}
	if m.Kubelet != nil {
		sim.Store(m.Kubelet)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(done)
		if err := m.Run(ctx); err != nil && ctx.Err() == nil {
			errs <- err
		}
	}()
	return func() { cancel(); <-done; client.CloseIdleConnections() }, errs, nil
}

// listenError adds a hint to an address that is taken.
func listenError(err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w (is another server on that port? --listen 127.0.0.1:0 picks a free one)", err)
	}
	return err
}

// stderrWriter writes through the console to stderr, one call at a time.
type stderrWriter struct{ c *console }

func (w stderrWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	w.c.clearLocked()
	n, err := w.c.stderr.Write(p)
	w.c.drawLocked()
	return n, err
}

var _ io.Writer = stderrWriter{}
