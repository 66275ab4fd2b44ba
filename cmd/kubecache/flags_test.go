package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlagsAnywhereAndAliases(t *testing.T) {
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}}
	parse := func(args ...string) (clusterFlags, listFlags, string, []string) {
		fs := newFlagSet("get", "use", "about")
		var (
			cf     clusterFlags
			lf     listFlags
			output string
		)
		cf.register(fs)
		lf.register(fs)
		fs.stringVar(&output, "output", "o", "", "")
		pos, err := a.parse(fs, args, 0, -1)
		require.NoError(t, err, "%v", args)
		return cf, lf, output, pos
	}

	cf, lf, out, pos := parse("pods", "-n", "shop", "web", "-A", "-l", "app=web", "-o", "wide", "--chunk-size", "-1")
	assert.Equal(t, []string{"pods", "web"}, pos, "flags between and after positional arguments")
	assert.Equal(t, "shop", cf.namespace)
	assert.True(t, cf.allNamespaces)
	assert.Equal(t, "app=web", lf.selector)
	assert.Equal(t, "wide", out)
	assert.Equal(t, int64(-1), lf.chunkSize, "a value may start with '-'")

	cf, lf, out, _ = parse("--namespace=kube-system", "--all-namespaces", "--selector", "x", "--output=json", "--field-selector=a=b")
	assert.Equal(t, "kube-system", cf.namespace)
	assert.True(t, cf.allNamespaces)
	assert.Equal(t, "x", lf.selector)
	assert.Equal(t, "json", out)
	assert.Equal(t, "a=b", lf.fieldSelector)

	_, _, _, pos = parse("-n", "a", "--", "-weird-name", "--also")
	assert.Equal(t, []string{"-weird-name", "--also"}, pos, "after --, everything is positional")
}

func TestHelp(t *testing.T) {
	r := runCommand(t, "get", "--help")
	require.NoError(t, r.err)
	assert.True(t, strings.HasPrefix(r.stdout, "Usage:\n  kubecache get RESOURCE [NAME] [flags]\n"), r.stdout)
	for _, want := range []string{
		"  -A, --all-namespaces ", "  -n, --namespace string ", "  -l, --selector string ", "  -o, --output string ",
		"      --field-selector string ", "      --kubeconfig string ", "      --context string ", "      --explain ",
		"      --chunk-size int ", "(default 500)",
	} {
		assert.Contains(t, r.stdout, want)
	}
	assert.NotContains(t, r.stdout, "  -n string", "an alias is listed with its long name, not on its own")
	assert.Empty(t, r.stderr)

	for _, cmd := range []string{"watch", "demo", "serve", "version"} {
		r := runCommand(t, cmd, "-h")
		require.NoError(t, r.err, cmd)
		assert.True(t, strings.HasPrefix(r.stdout, "Usage:\n  kubecache "+cmd), r.stdout)
	}

	r = runCommand(t, "help")
	require.NoError(t, r.err)
	for _, cmd := range []string{"get", "watch", "demo", "serve", "version"} {
		assert.Contains(t, r.stdout, "\n  "+cmd+" ")
	}
}

func TestVersion(t *testing.T) {
	r := runCommand(t, "version")
	require.NoError(t, r.err)
	assert.Regexp(t, `^kubecache \S+ go1\.\S+ \w+/\w+\n$`, r.stdout)
}
