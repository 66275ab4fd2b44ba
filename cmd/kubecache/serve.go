package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

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
controllers (deployment, endpointslice, job, nodelifecycle, replicaset,
scheduler, serviceaccount, or all) and N simulated nodes run beside it as its
clients, so a Deployment gets its ReplicaSet, pods, scheduling and
readiness.

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
	)
	fs.stringVar(&listen, "listen", "", defaultListen, "address to listen on; 127.0.0.1:0 picks a free port")
	fs.stringVar(&kubeconfigOut, "kubeconfig-out", "", "", "write a kubeconfig for the server to this file")
	fs.boolVar(&useTLS, "tls", "", false, "serve HTTPS with a self-signed CA, written into the kubeconfig")
	fs.stringVar(&token, "token", "", "", "require this bearer token (written into the kubeconfig)")
	fs.Var(&loads, "load", "YAML or JSON manifests (a file or a directory) to create at start; may be repeated")
	fs.boolVar(&admin, "admin", "", false, "serve the fault-injection endpoint under /kubecache-admin/ (with --token, it takes the same token)")
	fs.boolVar(&verbose, "verbose", "v", false, "log every request on stderr")
	fs.stringVar(&controllerList, "controllers", "", "", "controllers to run beside the server: all, or a list of "+strings.Join(controllers.All, ", ")+` ("all,-scheduler" leaves one out)`)
	fs.stringVar(&nodeCount, "nodes", "", "0", "how many simulated nodes to run")
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
	opts := fakeapiserver.Options{Addr: listen, Admin: admin, TLS: useTLS}
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
	if len(names) > 0 || nodes > 0 {
		stop, err := runControllers(ctx, s, names, nodes, opts.Logger, &sim)
		if err != nil {
			return err
		}
		defer stop()
		con.outf("kubecache serve: controllers %s, %d simulated nodes", strings.Join(names, ","), nodes)
	}
	<-ctx.Done()
	con.outf("kubecache serve: shutting down")
	return nil
}

// runControllers starts the named controllers and nodes as clients of
// s, and stores the nodes in sim; stop ends them and waits.
func runControllers(ctx context.Context, s *fakeapiserver.Server, names []string, nodes int, log *slog.Logger, sim *atomic.Pointer[kubelet.Kubelet]) (stop func(), err error) {
	dir, err := os.MkdirTemp("", "kubecache-serve-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kubeconfig")
	if err := s.WriteKubeconfig(path); err != nil {
		return nil, err
	}
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: path})
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	client, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	m, err := controllers.New(client, controllers.Options{Controllers: names, Nodes: nodes, Logger: log})
	if err != nil {
		return nil, err
	}
	if m.Kubelet != nil {
		sim.Store(m.Kubelet)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.Run(ctx); err != nil && log != nil {
			log.Error("controllers stopped", "err", err)
		}
	}()
	return func() { cancel(); <-done; client.CloseIdleConnections() }, nil
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
