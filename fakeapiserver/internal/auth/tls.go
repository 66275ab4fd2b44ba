package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Certs holds the generated key material.
type Certs struct {
	caPEM             []byte
	caPool            *x509.CertPool
	server            tls.Certificate
	clientCertPEM     []byte
	clientKeyPEM      []byte
	clientCertificate tls.Certificate
}

// ClientUser is the user of the generated client certificate (its common
// name and organization).
var ClientUser = User{Name: "kubecache-admin", Groups: []string{"system:masters"}}

// GenerateCerts makes a CA, a serving certificate for hosts and a client
// certificate for ClientUser, valid from now.
func GenerateCerts(now time.Time, hosts []string) (*Certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fakeapiserver-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	c := &Certs{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), caPool: x509.NewCertPool()}
	c.caPool.AddCert(caCert)

	issue := func(serial int64, subject pkix.Name, usage x509.ExtKeyUsage, hosts []string) ([]byte, []byte, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      subject,
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			return nil, nil, err
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return nil, nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
	}
	certPEM, keyPEM, err := issue(2, pkix.Name{CommonName: "fakeapiserver"}, x509.ExtKeyUsageServerAuth, hosts)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: serving certificate: %w", err)
	}
	if c.server, err = tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return nil, err
	}
	if c.clientCertPEM, c.clientKeyPEM, err = issue(3, pkix.Name{CommonName: ClientUser.Name, Organization: ClientUser.Groups}, x509.ExtKeyUsageClientAuth, nil); err != nil {
		return nil, fmt.Errorf("fakeapiserver: client certificate: %w", err)
	}
	if c.clientCertificate, err = tls.X509KeyPair(c.clientCertPEM, c.clientKeyPEM); err != nil {
		return nil, err
	}
	return c, nil
}

// ServerTLSConfig returns the serving configuration, or nil without TLS.
func (s *Authenticator) ServerTLSConfig() (*tls.Config, error) {
	if s.certs == nil {
		return nil, nil
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{s.certs.server},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	if s.clientCertificates {
		// As kube-apiserver: ask for a certificate but verify it in the
		// authenticator, so one the CA did not sign is a 401, not a
		// failed handshake.
		cfg.ClientAuth = tls.RequestClientCert
	}
	return cfg, nil
}

// CAPEM returns the CA certificate clients should trust (TLS only).
func (s *Authenticator) CAPEM() []byte {
	if s.certs == nil {
		return nil
	}
	return s.certs.caPEM
}

// ClientTLSConfig is ClientTLSConfig.
func (s *Authenticator) ClientTLSConfig() *tls.Config {
	if s.certs == nil {
		return nil
	}
	cfg := &tls.Config{RootCAs: s.certs.caPool, MinVersion: tls.VersionTLS12}
	if s.clientCertificates {
		cfg.Certificates = []tls.Certificate{s.certs.clientCertificate}
	}
	return cfg
}
