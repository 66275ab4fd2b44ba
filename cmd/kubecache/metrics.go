package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/metrics/promtext"
)

// metricsServer serves a Registry at /metrics in the Prometheus text format
// (watch --metrics-addr), until stop.
type metricsServer struct {
	reg *metrics.Registry
	ln  net.Listener
	srv *http.Server
	wg  sync.WaitGroup
}

// startMetrics listens on addr and serves a new Registry there.
func startMetrics(addr, cmd string) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &usageError{cmd: cmd, msg: fmt.Sprintf("metrics: listen on %s: %v", addr, err)}
	}
	m := &metricsServer{reg: &metrics.Registry{}, ln: ln}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promtext.Handler(m.reg))
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	// Serve returns ErrServerClosed after stop, or an error if the
	// listener fails; either way the command goes on without metrics.
	m.wg.Go(func() { _ = m.srv.Serve(ln) })
	return m, nil
}

// url is where the metrics are served.
func (m *metricsServer) url() string { return "http://" + m.ln.Addr().String() + "/metrics" }

// stop closes the listener and every connection, and waits for Serve.
func (m *metricsServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.srv.Shutdown(ctx); err != nil {
		_ = m.srv.Close()
	}
	m.wg.Wait()
}
