package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build information is used.
var version = ""

// versionString returns the command's version, "(devel)" for a build from
// a source tree.
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// version prints "kubecache <version> <go version> <os>/<arch>".
func (a *app) version(_ context.Context, args []string) error {
	fs := newFlagSet("version", "kubecache version", "Print the version of kubecache.")
	if _, err := a.parse(fs, args, 0, 0); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "kubecache %s %s %s/%s\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
