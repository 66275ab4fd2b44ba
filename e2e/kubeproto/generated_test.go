package kubeproto

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableIsGenerated regenerates the codec's table from the Kubernetes
// types this module builds with and compares it with the checked-in one,
// so that the table cannot drift from the API unnoticed.
func TestTableIsGenerated(t *testing.T) {
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command runs the generator")
	out := filepath.Join(t.TempDir(), "schema.go")
	cmd := exec.Command(goTool, "run", "./gen", "-out", out)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Run())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("..", "..", "kubeproto", "zz_generated_schema.go"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "kubeproto/zz_generated_schema.go is stale: run go generate ./kubeproto")
}
