package controllers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/rest"
)

// LeaderElection makes the controllers of a Manager run only while it
// holds a Lease, so several managers against one server run each
// controller once, as kube-controller-manager's --leader-elect does.
// The informers, the event recorder and the simulated nodes run in
// every manager; a manager that loses the Lease stops (its Run returns
// leaderelection.ErrLeaseLost).
type LeaderElection struct {
	// Namespace and Name name the Lease; default
	// kube-system/kube-controller-manager.
	Namespace, Name string
	// Identity names this manager; default the host name and a random
	// suffix, as the real one's.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s,
	// 10 s and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Clock times the Lease; nil is the wall clock (a Lease measures
	// whether a process is alive, not the cluster's simulated time).
	Clock clock.Clock
}

// elector builds the Elector le describes.
func (le *LeaderElection) elector(client *rest.Client, onError func(error)) (*leaderelection.Elector, error) {
	cfg := leaderelection.Config{
		Client: client, Namespace: le.Namespace, Name: le.Name, Identity: le.Identity,
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		Clock: le.Clock, OnError: onError,
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "kube-system"
	}
	if cfg.Name == "" {
		cfg.Name = "kube-controller-manager"
	}
	if cfg.Identity == "" {
		host, _ := os.Hostname()
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		cfg.Identity = host + "_" + hex.EncodeToString(b)
	}
	return leaderelection.New(cfg)
}

// IsLeader reports whether the Manager runs its controllers now: always
// without leader election, while it holds the Lease with it.
func (m *Manager) IsLeader() bool { return m.elector == nil || m.elector.IsLeader() }

// runControllers runs the controllers until ctx ends, under the Lease
// when the Manager has leader election.
func (m *Manager) runControllers(ctx context.Context) error {
	fns := make([]func(context.Context) error, len(m.controllers))
	for i, r := range m.controllers {
		fns[i] = r.Run
	}
	if m.elector == nil {
		return runAll(ctx, fns...)
	}
	var err error
	lost := m.elector.Run(ctx, func(lead context.Context) { err = runAll(lead, fns...) })
	if lost != nil {
		return lost
	}
	return err
}
