package rest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
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
