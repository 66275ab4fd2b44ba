package rest

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInClusterConfig(t *testing.T) {
	p := getPKI(t)
	url, seen := authServer(t, nil)
	u := mustParseURL(t, url)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("sa-token\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), p.caPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "namespace"), []byte("team-a"), 0o600))
	env := map[string]string{"KUBERNETES_SERVICE_HOST": u.Hostname(), "KUBERNETES_SERVICE_PORT": u.Port()}

	cfg, err := inClusterConfig(mapEnv(env), dir)
	require.NoError(t, err)
	assert.Equal(t, url, cfg.Host)
	assert.Equal(t, "team-a", cfg.Namespace)
	assert.Equal(t, filepath.Join(dir, "token"), cfg.BearerTokenFile)

	c := newTestClient(t, cfg)
	require.NoError(t, c.Get().Resource("pods").Do(t.Context()).Error())
	assert.Equal(t, "Bearer sa-token", (<-seen).auth)

	env["POD_NAMESPACE"] = "from-env"
	cfg, err = inClusterConfig(mapEnv(env), dir)
	require.NoError(t, err)
	assert.Equal(t, "from-env", cfg.Namespace)

	// IPv6 service host.
	cfg, err = inClusterConfig(mapEnv(map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}), dir)
	require.NoError(t, err)
	assert.Equal(t, "https://[fd00::1]:443", cfg.Host)
}

func TestInClusterConfigErrors(t *testing.T) {
	env := mapEnv(map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"})
	_, err := inClusterConfig(mapEnv(nil), t.TempDir())
	assert.ErrorIs(t, err, ErrNotInCluster)

	dir := t.TempDir()
	_, err = inClusterConfig(env, dir)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "token")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("t"), 0o600))
	_, err = inClusterConfig(env, dir)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "CA")

	_, err = InClusterConfig()
	if os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		assert.ErrorIs(t, err, ErrNotInCluster)
	}
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
