package cluster_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// serverEnv, set to 1, makes the test binary serve a fake API server for
// BenchmarkRollout instead of running tests: the benchmark starts its
// own binary so that the server's CPU and heap are counted apart from
// the controllers'.
const serverEnv = "KUBECACHE_ROLLOUT_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(serveForRollout(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// serverProfileEnv, when set, is the file the server process writes its
// CPU profile to, for the server's share of a rollout:
//
//	KUBECACHE_ROLLOUT_SERVER_CPUPROFILE=/tmp/srv.prof go test -run '^$' -bench Rollout ./cluster/
const serverProfileEnv = "KUBECACHE_ROLLOUT_SERVER_CPUPROFILE"

// rolloutServerOptions keep the history and watch queues of 10,000 pods'
// changes.
var rolloutServerOptions = fakeapiserver.Options{HistoryLimit: 200000, WatchQueueLength: 100000}

// serveForRollout runs a fake API server, writes its URL to out, then
// answers the commands read from in, one a line: "cpu" with the CPU
// time the process has used, in nanoseconds; "heap" with the heap in
// use after a collection, in bytes. It stops the server at the end of
// in.
func serveForRollout(in io.Reader, out io.Writer) int {
	if path := os.Getenv(serverProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	srv := fakeapiserver.New(rolloutServerOptions)
	if err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintln(out, srv.URL())
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch sc.Text() {
		case "cpu":
			fmt.Fprintln(out, int64(processCPU()))
		case "heap":
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintln(out, ms.HeapAlloc)
		default:
			fmt.Fprintln(out, "unknown command")
		}
	}
	return 0
}

// processCPU returns the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverProcess is a fake API server in a child process.
type serverProcess struct {
	url string
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// startServerProcess starts the test binary as a fake API server; it is
// stopped when the benchmark ends.
func startServerProcess(b *testing.B) *serverProcess {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &serverProcess{cmd: cmd, in: in, out: bufio.NewReader(out)}
	b.Cleanup(func() {
		_ = in.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("server process: %v", err)
		}
	})
	url, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatalf("server process: no URL: %v", err)
	}
	p.url = strings.TrimSpace(url)
	return p
}

// ask sends cmd to the server process and returns its numeric answer.
func (p *serverProcess) ask(b *testing.B, cmd string) int64 {
	b.Helper()
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		b.Fatalf("server process: %v", err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatalf("server process: %v", err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil {
		b.Fatalf("server process answered %q to %s", line, cmd)
	}
	return v
}
