package hostile

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Against a server with read-header, read and idle timeouts, every kind
// of flood connection is counted open at first and closed once the
// server's timeouts end it; against one without, they stay open.
func TestFloodCountsWhatTheServerCloses(t *testing.T) {
	serve := func(timeout time.Duration) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Write([]byte("ok"))
			}),
			ReadHeaderTimeout: timeout, ReadTimeout: timeout, IdleTimeout: timeout,
		}
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
		return l.Addr().String()
	}
	opts := FloodOptions{Idle: 5, StalledHeaders: 5, StalledBodies: 5, Prefaces: 5}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	opts.Addr = serve(300 * time.Millisecond)
	f, err := StartFlood(ctx, opts)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, 20, f.Len())
	require.Eventually(t, func() bool { return len(f.Open()) == 0 }, 10*time.Second, 20*time.Millisecond, "still open: %v", f.Open())

	opts.Addr = serve(0)
	g, err := StartFlood(ctx, opts)
	require.NoError(t, err)
	defer g.Close()
	assert.Equal(t, map[string]int{KindIdle: 5, KindStalledHeaders: 5, KindStalledBody: 5, KindPreface: 5}, g.Open())
}
