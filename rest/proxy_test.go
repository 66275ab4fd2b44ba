package rest

import (
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connectProxy is an HTTP proxy: it tunnels CONNECT requests (HTTPS and
// websocket targets) and answers plain proxied requests itself. It counts
// both.
func connectProxy(t *testing.T) (url string, tunnels, plain *atomic.Int32) {
	t.Helper()
	tunnels, plain = new(atomic.Int32), new(atomic.Int32)
	srv := newPlainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			plain.Add(1)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"kind":"Pod","metadata":{"name":"via-proxy:`+r.URL.Host+`"}}`)
			return
		}
		tunnels.Add(1)
		dst, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer dst.Close()
		w.WriteHeader(http.StatusOK)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			io.Copy(dst, buf)
			dst.(*net.TCPConn).CloseWrite()
		}()
		io.Copy(conn, dst)
		conn.Close()
		wg.Wait()
	}))
	return srv.URL, tunnels, plain
}

func TestProxyHTTP(t *testing.T) {
	proxy, _, plain := connectProxy(t)
	// The target host does not resolve: only the proxy can answer.
	c := newTestClient(t, &Config{Host: "http://kubernetes.invalid:6443", ProxyURL: proxy})
	var got testPod
	require.NoError(t, c.Get().Namespace("ns").Resource("pods").Name("p").Do(t.Context()).Into(&got))
	assert.Equal(t, "via-proxy:kubernetes.invalid:6443", got.Name)
	assert.Equal(t, int32(1), plain.Load())
}

func TestProxyTunnelTLSAndWebsocket(t *testing.T) {
	p := getPKI(t)
	proxy, tunnels, _ := connectProxy(t)
	target, seen := authServer(t, nil)
	c := newTestClient(t, &Config{Host: target, ProxyURL: proxy, TLS: TLSConfig{CAData: p.caPEM}, BearerToken: "through-proxy"})
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	assert.Equal(t, "Bearer through-proxy", (<-seen).auth)
	assert.Equal(t, int32(1), tunnels.Load())

	wsTarget := websocketWatchServer(t, true)
	c = newTestClient(t, &Config{Host: wsTarget, ProxyURL: proxy, TLS: TLSConfig{CAData: p.caPEM}, BearerToken: "ws-token"})
	w, err := WatchAs[*testPod](t.Context(), c.Get().Resource("pods").Transport(WatchOverWebsocket))
	require.NoError(t, err)
	checkWatchEvents(t, collect(t, w))
	w.Stop()
	assert.Equal(t, int32(2), tunnels.Load(), "the websocket went through the proxy too")
}

func TestProxyURLSchemes(t *testing.T) {
	for _, u := range []string{"http://p:3128", "https://p:443", "socks5://p:1080", "socks5://user:pw@p:1080"} {
		f, err := proxyFunc(&Config{ProxyURL: u})
		require.NoError(t, err, u)
		req, _ := http.NewRequest("GET", "https://kubernetes.invalid", nil)
		got, err := f(req)
		require.NoError(t, err)
		assert.Equal(t, u, got.String())
	}
	for _, u := range []string{"ftp://p", "p:3128", "socks4://p:1"} {
		_, err := proxyFunc(&Config{ProxyURL: u})
		assert.Error(t, err, u)
	}
}
