package rest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kubecache/kubecache/clock"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// testPod is the object type the tests decode into.
type testPod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName string `json:"nodeName,omitempty"`
	} `json:"spec"`
}

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, all made fresh for a test.
type testPKI struct {
	caPEM      []byte
	caPool     *x509.CertPool
	serverCert tls.Certificate
	clientCert []byte // PEM
	clientKey  []byte // PEM
	clientName string
}

var (
	pkiOnce sync.Once
	pki     *testPKI
)

// getPKI returns the shared test PKI (made once: key generation is slow
// under the race detector).
func getPKI(t testing.TB) *testPKI {
	t.Helper()
	pkiOnce.Do(func() { pki = newPKI(t) })
	require.NotNil(t, pki)
	return pki
}

func newPKI(t testing.TB) *testPKI {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	now := time.Now()
	caKey := newKey()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubecache test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)

	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP, dns []string) ([]byte, []byte) {
		key := newKey()
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: cn, Organization: []string{"system:masters"}},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
			IPAddresses:  ips,
			DNSNames:     dns,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		keyDER, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	}
	p := &testPKI{clientName: "alice"}
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(ca)
	sc, sk := issue(2, "apiserver", x509.ExtKeyUsageServerAuth, []net.IP{net.ParseIP("127.0.0.1")}, []string{"kubernetes.default.svc"})
	p.serverCert, err = tls.X509KeyPair(sc, sk)
	require.NoError(t, err)
	p.clientCert, p.clientKey = issue(3, p.clientName, x509.ExtKeyUsageClientAuth, nil, nil)
	return p
}

// newTLSServer starts an HTTPS server (HTTP/2 enabled) with the test PKI's
// server certificate that asks for, and verifies, client certificates.
func newTLSServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	p := getPKI(t)
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{p.serverCert},
		ClientCAs:    p.caPool,
		ClientAuth:   tls.VerifyClientCertIfGiven,
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// newPlainServer starts an HTTP server.
func newPlainServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// newTestClient builds a client for srv with rate limiting off.
func newTestClient(t testing.TB, cfg *Config) *Client {
	t.Helper()
	if cfg.QPS == 0 {
		cfg.QPS = -1
	}
	c, err := NewClient(cfg)
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// newFakeClock returns a fake clock at a fixed start time.
func newFakeClock() *clock.Fake {
	return clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
}

var jsonUnmarshal = json.Unmarshal
