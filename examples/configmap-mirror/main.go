package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/rest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "configmap-mirror:", err)
		os.Exit(1)
	}
}

// run is the whole program: parse flags, connect, run the informers and
// the controller until ctx is cancelled.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("configmap-mirror", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "path to a kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	kubeContext := fs.String("context", "", "the kubeconfig context to use (default: its current-context)")
	workers := fs.Int("workers", 2, "how many sources to reconcile at once")
	leaderElect := fs.Bool("leader-elect", false, "take a Lease before acting, so only one copy of the controller writes")
	leaseNamespace := fs.String("lease-namespace", "default", "namespace of the leader-election Lease")
	identity := fs.String("identity", defaultIdentity(), "this copy's name in the leader-election Lease")
	verbose := fs.Bool("v", false, "log every action, not only warnings")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *workers < 1 {
		return fmt.Errorf("-workers must be at least 1, not %d", *workers)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: level}))

	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: *kubeconfig, Context: *kubeContext})
	if err != nil {
		return err
	}
	client, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()

	factory := informer.NewFactory(client, informer.FactoryOptions{
		OnError: func(err error) { logger.Warn("informer", "err", err) },
	})
	ctrl, err := NewController(client, factory, Options{Logger: logger})
	if err != nil {
		return err
	}

	// The informers run for the whole program (a standby keeps warm
	// caches); the controller only while this copy leads.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = factory.Run(ctx) })

	if !*leaderElect {
		return ctrl.Run(ctx, *workers)
	}
	elector, err := leaderelection.New(leaderelection.Config{
		Client: client, Namespace: *leaseNamespace, Name: "configmap-mirror", Identity: *identity,
		OnNewLeader: func(id string) { logger.Info("leader", "identity", id) },
		OnError:     func(err error) { logger.Warn("leader election", "err", err) },
	})
	if err != nil {
		return err
	}
	var runErr error
	err = elector.Run(ctx, func(ctx context.Context) { runErr = ctrl.Run(ctx, *workers) })
	return errors.Join(err, runErr)
}

// defaultIdentity is the host name and the process id.
func defaultIdentity() string {
	host, err := os.Hostname()
	if err != nil {
		host = "configmap-mirror"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}
