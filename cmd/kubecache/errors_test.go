package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
)

func TestKubectlStyleErrors(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{})

	r := runCommand(t, "get", "foo", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, "error: the server doesn't have a resource type \"foo\"\n", r.stderr)

	r = runCommand(t, "watch", "foo.bar", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, "error: the server doesn't have a resource type \"foo.bar\"\n", r.stderr)

	r = runCommand(t, "get", "pods", "--context", "nope", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, "error: context \"nope\" does not exist\n", r.stderr)

	s.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "list", Resource: "pods"}, Code: 403,
		Message: `pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`})
	r = runCommand(t, "get", "pods", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, `Error from server (Forbidden): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`+"\n", r.stderr)

	s.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "list", Resource: "pods"}, Code: 503, Message: "etcd is down"})
	r = runCommand(t, "get", "pods", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, "Error from server (ServiceUnavailable): etcd is down\n", r.stderr)
	assert.Empty(t, r.stdout)
}

func TestErrorsFromTheServersRules(t *testing.T) {
	_, kc := fakeServer(t, fakeapiserver.Options{
		Tokens: map[string]fakeapiserver.User{"t0k": {Name: "alice"}},
		Forbid: []fakeapiserver.ForbidRule{{User: "alice", Match: fakeapiserver.Match{Verb: "list", Resource: "secrets"}}},
	})
	r := runCommand(t, "get", "secrets", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.True(t, strings.HasPrefix(r.stderr, "Error from server (Forbidden): secrets is forbidden: User \"alice\""), r.stderr)

	data, err := os.ReadFile(kc)
	require.NoError(t, err)
	anonymous := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(anonymous, []byte(strings.ReplaceAll(string(data), "t0k", "wrong")), 0o600))
	r = runCommand(t, "get", "cm", "--kubeconfig", anonymous)
	require.Error(t, r.err)
	assert.Equal(t, "error: You must be logged in to the server (Unauthorized)\n", r.stderr)
}

func TestUnreachableServer(t *testing.T) {
	// A port nobody listens on: listen, note it, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://`+addr+`"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600))
	for _, cmd := range []string{"get", "watch"} {
		r := runCommand(t, cmd, "pods", "--kubeconfig", kc)
		require.Error(t, r.err)
		assert.Equal(t, "The connection to the server "+addr+" was refused - did you specify the right host or port?\n", r.stderr, cmd)
	}

	// A TLS server whose CA the kubeconfig does not carry.
	s, tlsKC := fakeServer(t, fakeapiserver.Options{TLS: true})
	data, err := os.ReadFile(tlsKC)
	require.NoError(t, err)
	noCA := regexp.MustCompile(`(?m)^\s*certificate-authority-data:.*\n`).ReplaceAllString(string(data), "")
	require.NotEqual(t, string(data), noCA)
	require.NoError(t, os.WriteFile(kc, []byte(noCA), 0o600))
	r := runCommand(t, "get", "pods", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.True(t, strings.HasPrefix(r.stderr, "Unable to connect to the server "+s.URL()+": "), r.stderr)
	assert.Contains(t, r.stderr, "certificate")
}

func TestNoKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	r := runCommand(t, "get", "pods")
	require.Error(t, r.err)
	assert.Equal(t, "error: "+errNoConfig.Error()+"\n", r.stderr)

	r = runCommand(t, "get", "pods", "--kubeconfig", filepath.Join(t.TempDir(), "absent"))
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "absent")
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "pods", "--bogus"}, "error: unknown flag: --bogus\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "pods", "-x=1"}, "error: unknown flag: -x\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get"}, "error: you must specify the type of resource to get (pods, deployments, configmaps, a custom resource...)\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "a", "b", "c"}, "error: \"kubecache get\" takes 0 to 2 arguments, got 3: a b c\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "pods", "-o", "jsonpath={.x}"}, "error: unable to match a printer suitable for the output format \"jsonpath={.x}\", allowed formats are: json,name,wide,yaml\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "pods", "--chunk-size", "-5"}, "error: --chunk-size must be 0 or more, got -5\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "pods", "--chunk-size", "many"}, "error: invalid value \"many\" for flag -chunk-size: parse error\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "pods", "--progress", "sometimes"}, "error: --progress must be auto, always or never, got \"sometimes\"\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"get", "pods/"}, "error: arguments in resource/name form must have a single resource and name\nSee 'kubecache get --help' for usage.\n"},
		{[]string{"watch"}, "error: \"kubecache watch\" needs 1 to 2 arguments\nSee 'kubecache watch --help' for usage.\n"},
		{[]string{"watch", "pods", "-o", "yaml"}, "error: watch prints -o json or text, not \"yaml\"\nSee 'kubecache watch --help' for usage.\n"},
		{[]string{"watch", "pods", "--show-object"}, "error: --show-object needs -o json\nSee 'kubecache watch --help' for usage.\n"},
		{[]string{"frob"}, "error: unknown command \"frob\" for \"kubecache\"\nSee 'kubecache --help' for usage.\n"},
		{[]string{"version", "now"}, "error: \"kubecache version\" takes no arguments, got 1: now\nSee 'kubecache version --help' for usage.\n"},
	} {
		r := runCommand(t, tc.args...)
		require.Error(t, r.err, "%v", tc.args)
		assert.Equal(t, tc.want, r.stderr, "kubecache %s", strings.Join(tc.args, " "))
		assert.Empty(t, r.stdout)
	}

	r := runCommand(t)
	require.Error(t, r.err)
	assert.Contains(t, r.stderr, "Commands:\n  get ")
	assert.True(t, strings.HasSuffix(r.stderr, "error: no command given\nSee 'kubecache --help' for usage.\n"), r.stderr)
}
