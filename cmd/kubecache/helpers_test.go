package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/await"
	"github.com/kubecache/kubecache/rest"
)

// testTimeout bounds every command a test runs to completion, and every
// wait for output.
const testTimeout = 60 * time.Second

// backgroundTimeout bounds a command a test starts in the background
// (a server it drives): it lives for all of the test's steps, which on a
// loaded machine take minutes when a test drives a whole cluster.
const backgroundTimeout = 5 * time.Minute

// fakeServer starts a fake API server for a test and writes its
// kubeconfig; it returns the server and the kubeconfig's path.
func fakeServer(t *testing.T, opts fakeapiserver.Options) (*fakeapiserver.Server, string) {
	t.Helper()
	s := fakeapiserver.NewForTest(t, opts)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, s.WriteKubeconfig(path))
	return s, path
}

// kubeconfigClient is a REST client built from the kubeconfig at path,
// its idle connections closed when the test ends.
func kubeconfigClient(t *testing.T, path string) *rest.Client {
	t.Helper()
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: path})
	require.NoError(t, err)
	client, err := rest.NewClient(cfg)
	require.NoError(t, err)
	t.Cleanup(client.CloseIdleConnections)
	return client
}

// load creates the objects of a YAML manifest on s.
func load(t *testing.T, s *fakeapiserver.Server, manifest string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(t, s.Load(ctx, []byte(manifest)))
}

// result is what one run of the command produced.
type result struct {
	stdout, stderr string
	err            error
}

// runCommand runs the command to completion with args.
func runCommand(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, &stdout, &stderr)
	return result{stdout.String(), stderr.String(), err}
}

// background is a command running in its own goroutine, with output a
// test can wait on.
type background struct {
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan error
	once           sync.Once
	err            error
}

// start runs the command with args until stop.
func start(t *testing.T, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), backgroundTimeout)
	b := &background{stdout: newSyncBuffer(), stderr: newSyncBuffer(), cancel: cancel, done: make(chan error, 1)}
	go func() { b.done <- run(ctx, args, b.stdout, b.stderr) }()
	t.Cleanup(func() { b.stop() })
	return b
}

// stop cancels the command, waits for it and returns what run returned.
// It may be called more than once.
func (b *background) stop() error {
	b.cancel()
	return b.wait()
}

// wait waits for the command to end by itself.
func (b *background) wait() error {
	b.once.Do(func() { b.err = <-b.done })
	return b.err
}

// syncBuffer is a buffer several goroutines write to, and that a test can
// wait on until what it holds satisfies a condition.
type syncBuffer struct{ await.Buffer }

func newSyncBuffer() *syncBuffer { return &syncBuffer{} }

// waitFor waits until the buffer satisfies cond, failing the test after
// testTimeout.
func (b *syncBuffer) waitFor(t *testing.T, what string, cond func(string) bool) {
	t.Helper()
	b.WaitFor(t, testTimeout, what, cond)
}

// waitForText waits until the buffer contains text n times.
func (b *syncBuffer) waitForText(t *testing.T, text string, n int) {
	t.Helper()
	b.waitFor(t, fmt.Sprintf("%d × %q", n, text), func(s string) bool { return strings.Count(s, text) >= n })
}

// inOrder reports whether the parts appear in s in the given order, and
// the first one that does not.
func inOrder(s string, parts ...string) (bool, string) {
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			return false, p
		}
		at += i + len(p)
	}
	return true, ""
}
