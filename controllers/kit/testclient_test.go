package kit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
)

// newTestClient starts a fake API server on fc for the test and returns
// a client of it without a rate limit.
func newTestClient(t *testing.T, fc *clock.Fake) *rest.Client {
	t.Helper()
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{Clock: fc})
	client, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(client.CloseIdleConnections)
	return client
}
