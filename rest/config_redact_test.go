package rest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigPrintsNoSecrets(t *testing.T) {
	const token, password, key, envSecret = "tok-s3cret", "pa55-s3cret", "KEY-s3cret", "ENV-s3cret"
	cfg := &Config{
		Host:        "https://127.0.0.1:6443",
		BearerToken: token,
		Username:    "admin",
		Password:    password,
		TLS:         TLSConfig{KeyData: []byte(key), ServerName: "api"},
		Exec:        &ExecConfig{Command: "plugin", Env: []ExecEnvVar{{Name: "SECRET", Value: envSecret}}},
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, arg := range []any{cfg, *cfg} {
			out := fmt.Sprintf(verb, arg)
			for _, secret := range []string{token, password, key, envSecret} {
				assert.NotContains(t, out, secret, "Sprintf(%q, %T) leaks a secret", verb, arg)
			}
			assert.Contains(t, out, "127.0.0.1:6443", "Sprintf(%q, %T) still describes the config", verb, arg)
		}
	}
	// Printing does not change the Config itself.
	assert.Equal(t, token, cfg.BearerToken)
	assert.Equal(t, envSecret, cfg.Exec.Env[0].Value)
	assert.Equal(t, key, string(cfg.TLS.KeyData))
}

func TestConfigJSONAndLogsCarryNoSecrets(t *testing.T) {
	const token, password, key, envSecret = "tok-s3cret", "pa55-s3cret", "KEY-s3cret", "ENV-s3cret"
	cfg := &Config{
		Host:        "https://127.0.0.1:6443",
		BearerToken: token,
		Password:    password,
		TLS:         TLSConfig{KeyData: []byte(key)},
		Exec:        &ExecConfig{Command: "plugin", Env: []ExecEnvVar{{Name: "SECRET", Value: envSecret}}},
	}
	// What a secret may look like once encoded: as is, or as base64 of
	// []byte fields.
	secrets := []string{token, password, key, envSecret, base64.StdEncoding.EncodeToString([]byte(key))}
	var outs []string
	for _, v := range []any{cfg, *cfg, map[string]any{"config": cfg}} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		outs = append(outs, string(b))
	}
	var logs bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&logs, nil), slog.NewTextHandler(&logs, nil)} {
		slog.New(h).Info("connecting", "config", cfg, "value", *cfg)
	}
	outs = append(outs, logs.String())
	for _, out := range outs {
		for _, secret := range secrets {
			assert.NotContains(t, out, secret)
		}
		assert.Contains(t, out, "127.0.0.1:6443", "the output still describes the config")
	}
	assert.Equal(t, token, cfg.BearerToken, "encoding does not change the Config")
}

// TestRequestErrorsCarryNoToken prints, in every way a program might, the
// errors of requests made with a token: refused, unauthorized, forbidden,
// and each wrapped by a caller.
func TestRequestErrorsCarryNoToken(t *testing.T) {
	const token = "tok-3f9a1c77-s3cret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusUnauthorized
		if r.URL.Query().Get("forbid") != "" {
			code = http.StatusForbidden
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no","code":%d}`, code)
	}))
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	var errs []error
	for _, host := range []string{srv.URL, refused} {
		c := newTestClient(t, &Config{Host: host, BearerToken: token, QPS: -1})
		errs = append(errs,
			c.Get().Namespace("ns").Resource("pods").Do(t.Context()).Error(),
			c.Get().Namespace("ns").Resource("pods").Param("forbid", "1").Do(t.Context()).Error())
		_, err := c.Get().Resource("pods").Watch(t.Context())
		errs = append(errs, err)
		_, err = c.Get().Resource("pods").Transport(WatchOverWebsocket).Watch(t.Context())
		errs = append(errs, err)
		_, err = c.Get().Resource("pods").Stream(t.Context())
		errs = append(errs, err)
	}
	for _, err := range errs {
		require.Error(t, err)
		wrapped := fmt.Errorf("sync pods: %w", err)
		for _, e := range []error{err, wrapped, errors.Unwrap(err)} {
			if e == nil {
				continue
			}
			b, _ := json.Marshal(e)
			for _, out := range []string{fmt.Sprintf("%v", e), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e), fmt.Sprintf("%s", e), string(b)} {
				assert.NotContains(t, out, token)
			}
		}
	}
}
