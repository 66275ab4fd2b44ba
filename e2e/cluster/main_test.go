package cluster

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

func TestMain(m *testing.M) {
	code := target.Main(m)
	if err := realNodes.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: stop the simulated nodes of the real server:", err)
		code = 1
	}
	if code == 0 {
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
			fmt.Fprintln(os.Stderr, "e2e: -run narrows the tests: stale known differences not checked")
		} else if stale := known.stale(); len(stale) > 0 {
			fmt.Fprintf(os.Stderr, "e2e: %d known difference(s) in known_test.go no longer occur: remove them and their entries in docs/fidelity.md:\n  %s\n",
				len(stale), strings.Join(stale, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}
