package rest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

// This file builds the connection layer: the TLS configuration (CA pool,
// client certificate, server name) and the http.Transport (proxy, HTTP/2
// with ping-based detection of dead connections).

// tlsConfig builds the TLS configuration of cfg. exec, when set, may supply
// the client certificate at handshake time.
func tlsConfig(cfg *Config, exec *execAuth) (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         cfg.TLS.ServerName,
		InsecureSkipVerify: cfg.TLS.Insecure,
	}
	ca := cfg.TLS.CAData
	if ca == nil && cfg.TLS.CAFile != "" {
		b, err := os.ReadFile(cfg.TLS.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls: CA file: %w", err)
		}
		ca = b
	}
	if ca != nil {
		if cfg.TLS.Insecure {
			return nil, errors.New("tls: a CA and insecure (skip verification) are both set; choose one")
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, errors.New("tls: CA: no PEM certificate found")
		}
		tc.RootCAs = pool
	}
	cert, key := cfg.TLS.CertData, cfg.TLS.KeyData
	if cert == nil && cfg.TLS.CertFile != "" {
		b, err := os.ReadFile(cfg.TLS.CertFile)
		if err != nil {
			return nil, fmt.Errorf("tls: client certificate: %w", err)
		}
		cert = b
	}
	if key == nil && cfg.TLS.KeyFile != "" {
		b, err := os.ReadFile(cfg.TLS.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls: client key: %w", err)
		}
		key = b
	}
	var static *tls.Certificate
	switch {
	case (cert == nil) != (key == nil):
		return nil, errors.New("tls: a client certificate needs both the certificate and the key")
	case cert != nil:
		c, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("tls: client certificate: %w", err)
		}
		static = &c
	}
	switch {
	case exec != nil:
		// The plugin's certificate wins; without one, the static one (if
		// any) is presented.
		tc.GetClientCertificate = func(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			c, err := exec.clientCertificate(info)
			if err == nil && c.Certificate == nil && static != nil {
				return static, nil
			}
			return c, err
		}
	case static != nil:
		tc.Certificates = []tls.Certificate{*static}
	}
	return tc, nil
}

// proxyFunc returns the proxy selection of cfg: its ProxyURL, or the
// environment's settings.
func proxyFunc(cfg *Config) (func(*http.Request) (*url.URL, error), error) {
	if cfg.ProxyURL == "" {
		return http.ProxyFromEnvironment, nil
	}
	u, err := parseProxyURL(cfg.ProxyURL)
	if err != nil {
		return nil, fmt.Errorf("proxy URL: %w", err)
	}
	return http.ProxyURL(u), nil
}

// newHTTPTransport builds the transport: HTTP/1.1 and HTTP/2 (kept on even
// with a custom TLS configuration), with HTTP/2 pings on a silent
// connection so a dead peer is noticed without waiting for TCP.
func newHTTPTransport(cfg *Config, tc *tls.Config, proxy func(*http.Request) (*url.URL, error)) *http.Transport {
	idle, ping := cfg.HTTP2ReadIdleTimeout, cfg.HTTP2PingTimeout
	if idle == 0 {
		idle = defaultReadIdleTimeout
	}
	if idle < 0 {
		idle = 0
	}
	if ping <= 0 {
		ping = defaultPingTimeout
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	return &http.Transport{
		Proxy: proxy,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		// gzip is asked for and decoded by gzipRoundTripper (gzip.go).
		DisableCompression: true,
		ForceAttemptHTTP2:  true,
		Protocols:          &protocols,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout: idle,
			PingTimeout:     ping,
		},
	}
}

// defaultUserAgent is "kubecache/<version> (<os>/<arch>)", the version taken
// from the build information of the module.
func defaultUserAgent() string {
	return fmt.Sprintf("kubecache/%s (%s/%s)", moduleVersion(), runtime.GOOS, runtime.GOARCH)
}

// moduleVersion is kubecache's module version as the binary was built with
// it, or "v0.0.0-dev" for a development build.
func moduleVersion() string {
	const path = "github.com/kubecache/kubecache"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "v0.0.0-dev"
	}
	v := ""
	if info.Main.Path == path {
		v = info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == path {
			v = d.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "v0.0.0-dev"
	}
	return v
}
