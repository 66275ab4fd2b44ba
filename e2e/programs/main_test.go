package programs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// The binaries TestMain builds, by package.
const (
	kubecachePkg = "github.com/kubecache/kubecache/cmd/kubecache"
	mirrorPkg    = "github.com/kubecache/kubecache/examples/configmap-mirror"
)

// bins maps a package to its built binary.
var bins = map[string]string{}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubecache-e2e-programs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(2)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		for _, pkg := range []string{kubecachePkg, mirrorPkg} {
			out := filepath.Join(dir, filepath.Base(pkg))
			if err := build(pkg, out); err != nil {
				fmt.Fprintln(os.Stderr, "e2e:", err)
				return 2
			}
			bins[pkg] = out
		}
		return target.Main(m)
	}()
	os.Exit(code)
}

// build compiles pkg (of the kubecache module, through this module's
// replace) to out, bounded in time.
func build(pkg, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.WaitDelay = 10 * time.Second
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// runResult is how a finished program ended.
type runResult struct {
	Stdout, Stderr string
	// Err is the process's exit error (nil for exit status 0).
	Err error
}

// run runs a built program to its end, bounded by a minute.
func run(t *testing.T, pkg string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins[pkg], args...)
	cmd.Env = cleanEnv()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s %s did not end within a minute; stderr:\n%s", filepath.Base(pkg), strings.Join(args, " "), stderr.String())
	return runResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// cleanEnv is the test's environment without KUBECONFIG, so a program
// reads only the kubeconfig its flags name.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	return env
}

// process is a long-running program. With lines, its stdout lines arrive
// on Lines (read them, or the program blocks on a full pipe); without, its
// stdout is kept like its stderr. Stop interrupts it and waits for it and
// for the goroutine reading its output.
type process struct {
	cmd   *exec.Cmd
	Lines <-chan string
	// readDone is closed when the stdout reader has returned (at once
	// without lines).
	readDone chan struct{}
	stdout   *syncBuffer
	stderr   *syncBuffer
	waitErr  error
	stopOnce sync.Once
}

// start starts a built program; the test's cleanup stops it if the test
// did not.
func start(t *testing.T, withLines bool, pkg string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bins[pkg], args...)
	cmd.Env = cleanEnv()
	cmd.WaitDelay = 5 * time.Second
	p := &process{cmd: cmd, readDone: make(chan struct{}), stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	if !withLines {
		cmd.Stdout = p.stdout
		closed := make(chan string)
		close(closed)
		p.Lines = closed
		close(p.readDone)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = p.Stop() })
		return p
	}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string, 1024)
	p.Lines = lines
	go func() { // owned by p: Stop waits for it
		defer close(p.readDone)
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// Output is what the program wrote to stdout and stderr so far (stdout
// only when started without lines).
func (p *process) Output() string { return p.stdout.String() + p.stderr.String() }

// Stop sends the program an interrupt (Ctrl-C), kills it if it has not
// ended ten seconds later, and returns its exit error. Lines not read are
// dropped.
func (p *process) Stop() error {
	p.stopOnce.Do(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		timer := time.AfterFunc(10*time.Second, func() { _ = p.cmd.Process.Kill() })
		defer timer.Stop()
		// Drain what is left so the reader is never blocked on a full
		// channel while the program writes its last lines.
		drained := make(chan struct{})
		go func() { // ends when the reader closes lines; Stop waits for it
			defer close(drained)
			for range p.Lines {
			}
		}()
		<-drained
		<-p.readDone
		p.waitErr = p.cmd.Wait()
	})
	return p.waitErr
}

// Stderr is what the program wrote to stderr so far.
func (p *process) Stderr() string { return p.stderr.String() }

// next returns the next stdout line, failing the test after d or when the
// program has ended.
func (p *process) next(t *testing.T, d time.Duration, what string) string {
	t.Helper()
	select {
	case line, ok := <-p.Lines:
		if !ok {
			t.Fatalf("waiting for %s: the program ended; stderr:\n%s", what, p.Stderr())
		}
		return line
	case <-time.After(d):
		t.Fatalf("waiting for %s: nothing after %v; stderr:\n%s", what, d, p.Stderr())
		return ""
	}
}

// syncBuffer is a strings.Builder safe for a writer and a reader at once.
type syncBuffer struct {
	// mu guards b.
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
