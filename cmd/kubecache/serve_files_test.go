package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve --load reads only regular files inside the directory: a link out
// of it, a FIFO, a device are refused at once with an error naming the
// file; a link to a file inside is read.
func TestServeLoadIsConfinedToRegularFilesInTheDirectory(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	require.NoError(t, os.WriteFile(outside, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: outside, namespace: default}\n"), 0o600))
	cases := []struct {
		what  string
		setup func(dir string) error
		want  string
	}{
		{"a link out of the directory", func(dir string) error { return os.Symlink(outside, filepath.Join(dir, "out.yaml")) }, "path escapes from parent"},
		{"a link to /etc/hostname", func(dir string) error { return os.Symlink("/etc/hostname", filepath.Join(dir, "host.yaml")) }, "path escapes from parent"},
		{"a FIFO", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o600) }, "fifo.yaml: not a regular file"},
		{"a link to /dev/zero", func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")) }, "path escapes from parent"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n"), 0o600))
		require.NoError(t, c.setup(dir), c.what)
		start := time.Now()
		r := runCommand(t, "serve", "--listen", "127.0.0.1:0", "--load", dir)
		require.Error(t, r.err, c.what)
		assert.Contains(t, r.err.Error(), c.want, c.what)
		assert.Less(t, time.Since(start), 10*time.Second, c.what)
	}

	// A device or a FIFO named on the command line is refused too.
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, p := range []string{"/dev/zero", fifo} {
		r := runCommand(t, "serve", "--listen", "127.0.0.1:0", "--load", p)
		require.Error(t, r.err, p)
		assert.ErrorIs(t, r.err, errNotRegular, p)
	}

	// A link that stays inside the directory is read.
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "real.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside, namespace: default}\n"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join("sub", "real.yaml"), filepath.Join(dir, "link.yaml")))
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, _ := serveReady(t, "--kubeconfig-out", kc, "--load", dir)
	r := runCommand(t, "get", "cm", "inside", "-o", "name", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	assert.Equal(t, "configmap/inside\n", r.stdout)
	require.NoError(t, b.stop())
}

// The kubeconfig is written with mode 0600 even over a file of mode 0644,
// and a symbolic link at its path is replaced, not followed.
func TestServeKubeconfigIsPrivateAndReplaced(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte("old"), 0o644))
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(target, link))

	b, _ := serveReady(t, "--token", "s3cret", "--kubeconfig-out", kc)
	require.NoError(t, b.stop())
	b, _ = serveReady(t, "--token", "s3cret", "--kubeconfig-out", link)
	require.NoError(t, b.stop())

	for _, p := range []string{kc, link} {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode(), "%s is a private regular file", p)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Contains(t, string(data), "s3cret")
	}
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data), "the link's target is untouched")
	left, err := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left")
}
