package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as an exec credential plugin (see
	// credentials_test.go): run as one when asked to.
	if mode := os.Getenv(execPluginEnv); mode != "" {
		os.Exit(execPlugin(mode))
	}
	goleak.VerifyTestMain(m)
}
