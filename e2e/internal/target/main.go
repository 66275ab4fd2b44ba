package target

import (
	"fmt"
	"os"
	"testing"
)

// current is the target of this test binary, set by Main.
var current *Target

// Main sets up the target from the environment, runs the tests and tears
// the target down. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(target.Main(m)) }
//
// A target that cannot be set up fails the whole binary with the reason.
func Main(m *testing.M) int {
	t, err := FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 2
	}
	defer t.Close()
	current = t
	fmt.Fprintln(os.Stderr, "e2e: target:", t)
	return m.Run()
}

// Get returns the target set up by Main; a test binary without Main fails.
func Get(tb testing.TB) *Target {
	tb.Helper()
	if current == nil {
		tb.Fatal("e2e: no target: the package's TestMain must call target.Main")
	}
	return current
}
