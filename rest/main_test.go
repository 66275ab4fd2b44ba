package rest

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as an exec credential plugin (see
	// exec_test.go): run as one when asked to.
	if os.Getenv(fakePluginEnv) != "" {
		os.Exit(fakePlugin())
	}
	goleak.VerifyTestMain(m)
}
