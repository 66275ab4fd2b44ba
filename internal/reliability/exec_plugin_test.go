package reliability_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kubecache/kubecache/rest"
)

// Clients of the matrix rows marked exec get their bearer token from an
// exec credential plugin instead of their Config: a shell script that
// prints an ExecCredential holding testToken (handed to it in its
// environment, as kubeconfig's exec env does). The token then passes
// through the plugin's output, the client's credential cache and every
// re-run after a 401, and every output is still searched for it.

// execScript counts its runs in $PLUGIN_DIR/runs and prints the
// credential.
const execScript = `echo run >> "$PLUGIN_DIR/runs"
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"}}' "$PLUGIN_API_VERSION" "$PLUGIN_TOKEN"`

// execConfig runs the plugin, counting its runs in dir.
func execConfig(dir string) *rest.ExecConfig {
	return &rest.ExecConfig{
		APIVersion:      rest.ExecAPIVersionV1,
		Command:         "/bin/sh",
		Args:            []string{"-c", execScript},
		InteractiveMode: rest.ExecInteractiveNever,
		Env: []rest.ExecEnvVar{
			{Name: "PLUGIN_DIR", Value: dir},
			{Name: "PLUGIN_API_VERSION", Value: rest.ExecAPIVersionV1},
			{Name: "PLUGIN_TOKEN", Value: testToken},
		},
	}
}

// pluginRuns counts the plugin's runs recorded in dir.
func pluginRuns(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "runs"))
	return strings.Count(string(b), "\n")
}
