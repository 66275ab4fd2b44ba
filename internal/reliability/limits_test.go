package reliability_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
)

// The limits that keep one client from exhausting the fake server: the
// number of watches one user may hold open, and a watcher that stops
// reading closed once it falls behind. (Bodies over MaxRequestBodyBytes
// get 413: the bad-input table.)

func TestWatchersPerUserAreBounded(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{
		MaxWatchersPerUser: 2,
		Tokens:             map[string]fakeapiserver.User{testToken: {Name: "alice"}, "bob-token": {Name: "bob"}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	client := func(token string) *rest.Client {
		c, err := rest.NewClient(&rest.Config{Host: srv.URL(), BearerToken: token, QPS: -1})
		require.NoError(t, err)
		t.Cleanup(c.CloseIdleConnections)
		return c
	}
	alice, bob := client(testToken), client("bob-token")
	watchCM := func(c *rest.Client) (func(), error) {
		w, err := configMaps.on(c.Get(), "").Watch(ctx)
		if err != nil {
			return nil, err
		}
		return w.Stop, nil
	}
	for i := range 2 {
		stop, err := watchCM(alice)
		require.NoError(t, err, "watch %d of 2", i+1)
		t.Cleanup(stop)
	}
	require.NoError(t, srv.WaitForWatchers(ctx, "configmaps", 2))

	_, err := watchCM(alice)
	retryAfter, throttled := rest.IsTooManyRequests(err)
	assert.True(t, throttled, "a third watch of one user: %v", err)
	assert.Positive(t, retryAfter, "with Retry-After")
	_, _, err = configMaps.on(alice.Get(), "").List(ctx, func([]byte) error { return nil })
	assert.NoError(t, err, "a list is not a watch: not bounded")

	stop, err := watchCM(bob)
	require.NoError(t, err, "another user has watches of their own")
	stop()
}

func TestWatcherThatStopsReadingIsClosed(t *testing.T) {
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{WatchQueueLength: 8, WatchWriteTimeout: 200 * time.Millisecond})
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	// About 4 MiB of writes fill loopback's buffers: a few seconds with
	// -race, much more on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// A raw connection that asks for a watch and never reads.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(4096))
	_, err = fmt.Fprintf(conn, "GET %s?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n", cmCollection)
	require.NoError(t, err)
	require.NoError(t, srv.WaitForWatchers(ctx, "configmaps", 1))

	// Large writes fill the socket, then the watcher's queue: the server
	// drops it. The loop is bounded by the writes it takes, not by time.
	big := strings.Repeat("x", 64<<10)
	const maxWrites = 1000
	n := 0
	for ; srv.Watchers("configmaps") > 0; n++ {
		require.Less(t, n, maxWrites, "a watcher that never reads was still open after %d writes of 64 KiB", n)
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-%d"},"data":{"v":%q}}`, n, big)
		require.NoError(t, configMapCreate(ctx, hc, srv.URL(), body))
	}
	t.Logf("the watcher that stopped reading was dropped after %d writes of 64 KiB", n)

	// A reader is unaffected: a new watch opens and sees new writes.
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	w, err := configMaps.on(c.Get(), "").Param("resourceVersion", fmt.Sprint(srv.ResourceVersion())).Watch(ctx)
	require.NoError(t, err)
	defer w.Stop()
	require.NoError(t, configMapCreate(ctx, hc, srv.URL(), `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after"}}`))
	ev := <-w.ResultChan()
	require.NoError(t, ev.Err)
	assert.Equal(t, "after", ev.Object.GetObjectMeta().Name)
}

// configMapCreate creates a ConfigMap in default from body.
func configMapCreate(ctx context.Context, hc *http.Client, base, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+cmCollection, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("create: %s", resp.Status)
	}
	return nil
}
