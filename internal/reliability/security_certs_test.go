package reliability_test

import (
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// Authentication by client certificate on every verb: a certificate the
// server's CA signed authenticates its common name; none, or one another
// CA signed, is refused with 401 — as kube-apiserver does, which asks for
// a certificate without requiring one and leaves the verdict to its
// authenticators; forbid rules then apply to the certificate's user (403).

// certClients returns HTTP clients of srv: one presenting srv's own client
// certificate, one presenting none, one presenting a certificate signed by
// another CA (other's).
func certClients(t *testing.T, srv, other *fakeapiserver.Server) map[string]*tls.Config {
	t.Helper()
	good := srv.ClientTLSConfig()
	require.NotNil(t, good)
	require.NotEmpty(t, good.Certificates, "the server presents no client certificate: ClientCertificates is off")
	none := good.Clone()
	none.Certificates = nil
	foreign := good.Clone()
	foreign.Certificates = other.ClientTLSConfig().Certificates
	return map[string]*tls.Config{"its own CA's certificate": good, "no certificate": none, "another CA's certificate": foreign}
}

func httpClient(t *testing.T, tc *tls.Config) *http.Client {
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

func TestClientCertificatesOnEveryVerb(t *testing.T) {
	opts := fakeapiserver.Options{TLS: true, ClientCertificates: true}
	srv := fakeapiserver.NewForTest(t, opts)
	other := fakeapiserver.NewForTest(t, opts)
	forbidding := opts
	forbidding.Forbid = []fakeapiserver.ForbidRule{{User: fakeapiserver.ClientUser.Name, Match: fakeapiserver.Match{Resource: "configmaps"}}}
	forbidden := fakeapiserver.NewForTest(t, forbidding)

	clients := certClients(t, srv, other)
	// cases are the callers, each with the code it gets where an allowed
	// user gets ok.
	type certCase struct {
		name string
		srv  *fakeapiserver.Server
		tls  *tls.Config
		want int
	}
	cases := func(ok int) []certCase {
		return []certCase{
			{"no certificate", srv, clients["no certificate"], 401},
			{"another CA's certificate", srv, clients["another CA's certificate"], 401},
			{"a forbidden user's certificate", forbidden, forbidden.ClientTLSConfig(), 403},
			{"an allowed user's certificate", srv, clients["its own CA's certificate"], ok},
		}
	}
	setupVerbs(t, httpClient(t, clients["its own CA's certificate"]), srv.URL(), "")
	for _, v := range everyVerb {
		for _, who := range cases(v.ok) {
			t.Run(v.verb+"/"+who.name, func(t *testing.T) {
				code, err := v.send(t, httpClient(t, who.tls), who.srv.URL(), "")
				require.NoError(t, err)
				assert.Equal(t, who.want, code)
			})
		}
	}
	for _, who := range cases(http.StatusSwitchingProtocols) {
		t.Run("websocket watch/"+who.name, func(t *testing.T) {
			code, err := websocketWatch(who.srv.URL(), http.Header{}, who.tls)
			require.NotZero(t, code, "%v", err)
			assert.Equal(t, who.want, code)
		})
	}
}
