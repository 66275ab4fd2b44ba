package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// main runs the command with a context that ends on SIGINT or SIGTERM,
// and exits 1 if it failed (run has already printed why).
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(1)
	}
}

// run is the whole command: it runs the subcommand args name, writes its
// output to stdout and diagnostics to stderr, prints an error the way
// kubectl does, and returns it. Cancelling ctx ends a long-running
// subcommand (watch, demo, serve) normally.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := &app{stdout: stdout, stderr: stderr, now: time.Now, terminal: isTerminal(stderr)}
	err := a.dispatch(ctx, args)
	if err != nil && !errors.Is(err, errHelpShown) {
		fmt.Fprintln(stderr, describeError(err))
	}
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

// app is one invocation: where output goes and what the environment is.
type app struct {
	stdout, stderr io.Writer
	// now is the clock ages and rates are read from.
	now func() time.Time
	// terminal reports that stderr is a terminal, where progress is shown.
	terminal bool
}

// commands maps each subcommand to its function and one line of help.
var commands = []struct {
	name, summary string
	run           func(a *app, ctx context.Context, args []string) error
}{
	{"get", "list a resource through a reflector and print what the cache holds", (*app).get},
	{"watch", "run an informer and print every change as it is reflected", (*app).watch},
	{"demo", "a fake API server, a workload, faults and an informer narrating itself", (*app).demo},
	{"serve", "run the fake API server as a process", (*app).serve},
	{"version", "print the version", (*app).version},
}

// errHelpShown is returned when -h or --help printed the help: not an
// error for the exit code.
var errHelpShown = errors.New("help shown")

// dispatch runs the subcommand named by args[0].
func (a *app) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		a.usage(a.stderr)
		return &usageError{msg: "no command given"}
	}
	switch args[0] {
	case "-h", "--help", "help":
		a.usage(a.stdout)
		return errHelpShown
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(a, ctx, args[1:])
		}
	}
	return &usageError{msg: fmt.Sprintf("unknown command %q for \"kubecache\"", args[0])}
}

// usage prints the list of commands.
func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, `kubecache mirrors Kubernetes resources into a local cache the way a
controller does (list, then watch; relist on 410) and shows it happening.

Usage:
  kubecache <command> [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Try:
  kubecache demo                      no cluster needed: watch the machinery work
  kubecache get pods -A --explain     against your current kubeconfig context
  kubecache watch deploy -n default

Use "kubecache <command> --help" for a command's flags.
`)
}
