//go:build load

package fakeapiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/watch"
)

// listPods is the number of pods a LIST load test uses:
// KUBECACHE_LIST_PODS, or def.
func listPods(tb testing.TB, def int) int {
	v := os.Getenv("KUBECACHE_LIST_PODS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "KUBECACHE_LIST_PODS")
	return n
}

// TestLoadListVsReplay checks LIST speed: a full, unpaged LIST of
// 100,000 pods from the fake server in under twice the time the peerbench
// replay server (which only copies pre-encoded bytes) takes to send the
// same pods. The replay server's binary comes from KUBECACHE_REPLAYSERVER
// (default /tmp/peerbench/bin/replayserver; build it from
// ../shared/peerbench with `go build -o /tmp/peerbench/bin/
// ./cmd/replayserver`); the test skips without it. The fake server is
// loaded with the replay server's own objects, committed to its store as
// they are (their resourceVersion aside), so both bodies hold the same
// bytes. It needs minutes (loading 100,000 pods dominates): run it with
// -timeout 20m. Each LIST is read to io.Discard by a plain HTTP client; the
// rounds alternate between the servers, in JSON and then in protobuf
// (the replay server's protobuf holds the Kubernetes encoders' bytes, the
// fake server's its own codec's: the same size within 1 %).
func TestLoadListVsReplay(t *testing.T) {
	pods := listPods(t, 100_000)
	bin := os.Getenv("KUBECACHE_REPLAYSERVER")
	if bin == "" {
		bin = "/tmp/peerbench/bin/replayserver"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no replay server binary: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	replay, replayPID := startReplayServer(t, ctx, bin, "-pods", strconv.Itoa(pods), "-events", "1", "-max-page", "0")

	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	t0 := time.Now()
	body := getBody(t, ctx, client, replay+"/api/v1/pods")
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list.Items, pods)
	t.Logf("fetched %d pods (%d MB) from the replay server in %v", len(list.Items), len(body)>>20, time.Since(t0))

	s := NewForTest(t, Options{CompactionInterval: -1})
	t0 = time.Now()
	require.NoError(t, commitAsIs(ctx, s, list.Items))
	t.Logf("loaded them into the fake server in %v", time.Since(t0))
	list.Items, body = nil, nil
	// Time the servers in a settled heap, not while the collector is
	// still marking what loading left behind.
	runtime.GC()

	t.Logf("load average before: %s", loadAverage())
	const rounds = 5
	js := runListRounds(t, ctx, client, replay, s.URL(), replayPID, "application/json", rounds)
	js.log(t, "JSON")
	// The fake server encodes each item's protobuf on the first protobuf
	// LIST and serves it from the object version's cache after that.
	d, _ := timeList(t, ctx, client, s.URL()+"/api/v1/pods", request.MediaProtobuf)
	t.Logf("first protobuf LIST of the fake server (encodes every item): %v", d)
	runtime.GC() // what encoding left behind, collected before the rounds
	pb := runListRounds(t, ctx, client, replay, s.URL(), replayPID, request.MediaProtobuf, rounds)
	pb.log(t, "protobuf")
	t.Logf("fake server, protobuf ÷ JSON: median %.2f×, server CPU %.2f×", pb.median(pb.fake).Seconds()/js.median(js.fake).Seconds(), pb.fakeCPU.Seconds()/js.fakeCPU.Seconds())

	var pagedFake, pagedRep []time.Duration
	for range 3 {
		d, pages := timePagedList(t, ctx, client, replay+"/api/v1/pods?limit=500")
		require.Equal(t, pods/500, pages)
		pagedRep = append(pagedRep, d)
		d, pages = timePagedList(t, ctx, client, s.URL()+"/api/v1/pods?limit=500")
		require.Equal(t, pods/500, pages)
		pagedFake = append(pagedFake, d)
	}
	slices.Sort(pagedFake)
	slices.Sort(pagedRep)
	t.Logf("paged LIST (limit=500, 200 pages), median of 3: replay %v, fake %v (%.2f×)", pagedRep[1], pagedFake[1], pagedFake[1].Seconds()/pagedRep[1].Seconds())
	t.Logf("load average after: %s", loadAverage())
	for _, r := range []listRounds{js, pb} {
		assert.InDelta(t, float64(r.repBytes), float64(r.fakeBytes), float64(r.repBytes)/100, "%s: the two bodies hold the same pods", r.accept)
		assert.LessOrEqual(t, r.median(r.fake).Seconds(), 2*r.median(r.rep).Seconds(), "%s: the fake server's median full LIST within 2× the replay server's", r.accept)
	}
	require.NoError(t, ctx.Err(), "the load test exceeded its time budget")
}

// listRounds is what alternating full LISTs of the replay server and the
// fake server measured, in one encoding.
type listRounds struct {
	accept              string
	fake, rep           []time.Duration
	fakeBytes, repBytes int64
	// CPU time as well as wall time: on a loaded machine the replay
	// server, a process of its own, gets its own share of the CPUs while
	// the fake server shares this process with the client. The fake
	// server's CPU is this process's minus the client's (measured on the
	// replay rounds); the replay server's is its process's.
	clientCPU, fakeCPU, replayCPU time.Duration
}

// runListRounds alternates rounds full, unpaged LISTs of pods from the
// replay server and from the fake server, asking for accept.
func runListRounds(t *testing.T, ctx context.Context, client *http.Client, replay, fake string, replayPID int, accept string, rounds int) listRounds {
	t.Helper()
	r := listRounds{accept: accept}
	for range rounds {
		c0, r0 := processCPU(), replayProcessCPU(t, replayPID)
		d, n := timeList(t, ctx, client, replay+"/api/v1/pods", accept)
		r.rep, r.repBytes = append(r.rep, d), n
		c1, r1 := processCPU(), replayProcessCPU(t, replayPID)
		r.clientCPU += c1 - c0
		r.replayCPU += r1 - r0
		d, n = timeList(t, ctx, client, fake+"/api/v1/pods", accept)
		r.fake, r.fakeBytes = append(r.fake, d), n
		r.fakeCPU += processCPU() - c1
	}
	r.fakeCPU -= r.clientCPU
	slices.Sort(r.fake)
	slices.Sort(r.rep)
	return r
}

func (r listRounds) median(ds []time.Duration) time.Duration { return ds[len(ds)/2] }

func (r listRounds) log(t *testing.T, wire string) {
	t.Helper()
	n := time.Duration(len(r.fake))
	t.Logf("%s: CPU per full LIST: replay server %v, fake server %v (%.2f×), client %v", wire, r.replayCPU/n, r.fakeCPU/n, r.fakeCPU.Seconds()/r.replayCPU.Seconds(), r.clientCPU/n)
	t.Logf("%s: full LIST, replay server: %d bytes, best %v, median %v", wire, r.repBytes, r.rep[0], r.median(r.rep))
	t.Logf("%s: full LIST, fake server:   %d bytes, best %v, median %v", wire, r.fakeBytes, r.fake[0], r.median(r.fake))
	t.Logf("%s: fake / replay: best %.2f×, median %.2f×", wire, r.fake[0].Seconds()/r.rep[0].Seconds(), r.median(r.fake).Seconds()/r.median(r.rep).Seconds())
}

// startReplayServer starts the peerbench replay server and returns its
// URL and process id; the process ends with the test.
func startReplayServer(t *testing.T, ctx context.Context, bin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		wg.Wait()
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "http://") {
			// Keep draining its output so it never blocks on a full pipe.
			wg.Go(func() { _, _ = io.Copy(io.Discard, out) })
			return line, cmd.Process.Pid
		}
	}
	t.Fatalf("the replay server printed no URL: %v", sc.Err())
	return "", 0
}

// replayProcessCPU returns the CPU time (user + system) of process pid
// from /proc/<pid>/stat, in clock ticks of 10 ms.
func replayProcessCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// Fields after the command name (which ends with ')'): state is
	// field 3, utime 14 and stime 15.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	require.GreaterOrEqual(t, len(fields), 13, "/proc/%d/stat", pid)
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	require.NoError(t, err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	require.NoError(t, err)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func getBody(t *testing.T, ctx context.Context, client *http.Client, url string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return data
}

// timeList times one GET asking for accept, read to io.Discard, and
// returns the body's size.
func timeList(t *testing.T, ctx context.Context, client *http.Client, url, accept string) (time.Duration, int64) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	start := time.Now()
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	n, err := io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	return time.Since(start), n
}

// timePagedList follows continue tokens to the end and returns the time
// and the number of pages.
func timePagedList(t *testing.T, ctx context.Context, client *http.Client, url string) (time.Duration, int) {
	t.Helper()
	start := time.Now()
	pages := 0
	for next := url; next != ""; pages++ {
		body := getBody(t, ctx, client, next)
		next = ""
		// The list's metadata comes first; only its continue is read.
		head := body[:min(len(body), 1024)]
		if i := bytes.Index(head, []byte(`"continue":"`)); i >= 0 {
			rest := head[i+len(`"continue":"`):]
			if j := bytes.IndexByte(rest, '"'); j > 0 {
				next = url + "&continue=" + string(rest[:j])
			}
		}
		require.Less(t, pages, 10_000, "runaway pagination")
	}
	return time.Since(start), pages
}

// commitAsIs stores objects exactly as encoded (only their resourceVersion
// changes), creating their namespaces first: a bulk load that skips the
// create path's defaulting and managedFields, so the fake server's LIST
// carries the same bytes as the server the objects came from. Two
// goroutines decode; the store orders the commits.
func commitAsIs(ctx context.Context, s *Server, items []json.RawMessage) error {
	res := s.registry.Lookup("", "v1", "pods")
	nsRes := s.registry.Lookup("", "v1", "namespaces")
	// seenMu guards seen.
	var seenMu sync.Mutex
	seen := map[string]bool{}
	const workers = 2
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Go(func() {
			for i := g; i < len(items); i += workers {
				if err := commitOneAsIs(ctx, s, res, nsRes, items[i], &seenMu, seen); err != nil {
					errs <- fmt.Errorf("item %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func commitOneAsIs(ctx context.Context, s *Server, res, nsRes *registry.Resource, item []byte, seenMu *sync.Mutex, seen map[string]bool) error {
	in, err := request.DecodeObject(s.registry, res, "v1", item, "")
	if err != nil {
		return err
	}
	ns := in.Meta.Namespace
	seenMu.Lock()
	if !seen[ns] {
		seen[ns] = true
		if _, _, err := s.create(ctx, nsRes, "v1", "", []byte(`{"metadata":{"name":"`+ns+`"}}`), writeOptions{manager: "load"}); err != nil && !strings.Contains(err.Error(), "already exists") {
			seenMu.Unlock()
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	seenMu.Unlock()
	m := in.Meta
	restJSON := storage.EncodeRest(in.Rest)
	_, err = s.store.Commit(res.StorageKey(), storage.ObjectKey(ns, m.Name), watch.Added, nil, func(rv int64) (*storage.Object, error) {
		m.ResourceVersion = strconv.FormatInt(rv, 10)
		return storage.Assemble("Pod", "v1", m, restJSON, nil)
	})
	return err
}
