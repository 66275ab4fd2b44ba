package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// The fan-out load harness behind TestLoadFanOut (build tag load) and
// BenchmarkFanOutLoad: objects ConfigMaps in one namespace, watchers HTTP
// watches over loopback that count frames without decoding them (JSON
// ones by their newlines, protobuf ones by their length prefixes: the
// clients share the machine with the server), and one
// writer committing updates in process through the same update path as a
// PUT (decode, validation, managedFields, commit) at a fixed rate, or as
// fast as it can with rate 0.

// fanoutLoad configures one run.
type fanoutLoad struct {
	objects, watchers, events int
	// protobuf is how many of the watchers ask for protobuf (the first
	// ones); the others ask for JSON.
	protobuf int
	// rate is updates per second; 0 writes back to back.
	rate float64
	// queue is the server's WatchQueueLength.
	queue int
	// drain bounds the wait for the watchers after the last write.
	drain time.Duration
}

// fanoutResult is what a run measured.
type fanoutResult struct {
	loadTime  time.Duration
	writeTime time.Duration
	// cpu is the process's CPU time (user + system) from the first write
	// to the last frame: server and clients together.
	cpu time.Duration
	// writerCPU is the writer's share of cpu (its thread's CPU time).
	writerCPU time.Duration
	// total is from the first write to the last frame received.
	total time.Duration
	// reads is the watchers' reads that returned data, all together.
	reads int
	// complete counts the watchers that received every event.
	complete int
	// short names the watchers that did not, with what they received.
	short []string
	// lag[i] is the time from the start of write i to the last watcher
	// receiving its frame; sorted.
	lag []time.Duration
}

func (r fanoutResult) deliveriesPerSec(cfg fanoutLoad) float64 {
	return float64(cfg.watchers*cfg.events) / r.total.Seconds()
}

func (r fanoutResult) lagAt(q float64) time.Duration {
	if len(r.lag) == 0 {
		return 0
	}
	return r.lag[min(len(r.lag)-1, int(q*float64(len(r.lag))))]
}

func (r fanoutResult) String() string {
	return fmt.Sprintf("lag p50 %v p99 %v max %v; %d watchers complete; CPU %v of which the writer %v (%.2f µs per delivery besides the writer); %.1f frames per read", r.lagAt(0.5), r.lagAt(0.99), r.lagAt(1), r.complete, r.cpu, r.writerCPU, r.fanoutCPUPerDelivery().Seconds()*1e6, float64(len(r.lag)*r.complete)/float64(max(r.reads, 1)))
}

// threadCPU returns the CPU time the calling thread has used (0 where the
// platform does not say).
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// fanoutCPUPerDelivery is the CPU time per delivery of everything but
// the writer: the server's watch goroutines and the clients.
func (r fanoutResult) fanoutCPUPerDelivery() time.Duration {
	return (r.cpu - r.writerCPU) / time.Duration(max(len(r.lag)*r.complete, 1))
}

// processCPU returns the CPU time the process has used (0 where the
// platform does not say).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// frameCounter reads one watch response and records when each frame's
// end arrived, in nanoseconds after base: a JSON frame's newline, or the
// last byte of a protobuf frame (a 4-byte big-endian length, then that
// many bytes).
type frameCounter struct {
	at []int64
	// reads counts the reads that returned data: about one per flush.
	reads int
	err   error
	// lengthPrefixed says the frames are protobuf ones; head holds the
	// part of a length read so far, and body the bytes of the current
	// frame still to come.
	lengthPrefixed bool
	head           []byte
	body           int
}

func (fc *frameCounter) run(body interface{ Read([]byte) (int, error) }, base time.Time, want int) {
	buf := make([]byte, 64<<10)
	for len(fc.at) < want {
		n, err := body.Read(buf)
		if n > 0 {
			fc.reads++
			now := int64(time.Since(base))
			k := 0
			if fc.lengthPrefixed {
				k = fc.prefixedFrames(buf[:n])
			} else {
				k = bytes.Count(buf[:n], []byte{'\n'})
			}
			for ; k > 0; k-- {
				fc.at = append(fc.at, now)
			}
		}
		if err != nil {
			fc.err = err
			return
		}
	}
}

// prefixedFrames returns how many length-prefixed frames end in p, which
// continues the bytes read before.
func (fc *frameCounter) prefixedFrames(p []byte) int {
	k := 0
	for len(p) > 0 {
		if fc.body > 0 {
			n := min(fc.body, len(p))
			fc.body -= n
			p = p[n:]
			if fc.body == 0 {
				k++
			}
			continue
		}
		fc.head = append(fc.head, p[0])
		p = p[1:]
		if len(fc.head) == 4 {
			fc.body = int(binary.BigEndian.Uint32(fc.head))
			fc.head = fc.head[:0]
			if fc.body == 0 {
				k++
			}
		}
	}
	return k
}

// loadConfigMaps creates n ConfigMaps cm-000000… in "default" through the
// create path of a POST, with workers goroutines.
func loadConfigMaps(ctx context.Context, s *Server, n, workers int) error {
	cms := s.registry.Lookup("", "v1", "configmaps")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Go(func() {
			for i := g; i < n; i += workers {
				body := fmt.Sprintf(`{"metadata":{"name":"cm-%06d","labels":{"shard":"%d"}},"data":{"key":"value-%d"}}`, i, i%10, i)
				if _, _, err := s.create(ctx, cms, "v1", "default", []byte(body), writeOptions{manager: "load"}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// runFanoutLoad runs one fan-out load and returns its figures; setup
// failures are fatal.
func runFanoutLoad(tb testing.TB, ctx context.Context, cfg fanoutLoad) fanoutResult {
	tb.Helper()
	s := New(Options{CompactionInterval: -1, HistoryLimit: max(cfg.events+100, 10_000), WatchQueueLength: cfg.queue})
	if err := s.Start(); err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	var res fanoutResult

	start := time.Now()
	if err := loadConfigMaps(ctx, s, cfg.objects, 2); err != nil {
		tb.Fatalf("load objects: %v", err)
	}
	res.loadTime = time.Since(start)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: cfg.watchers, ReadBufferSize: 64 << 10, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	rv := fmt.Sprint(s.ResourceVersion())
	base := time.Now()
	counters := make([]frameCounter, cfg.watchers)
	var readers sync.WaitGroup
	for w := range cfg.watchers {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+rv, nil)
		if err != nil {
			tb.Fatal(err)
		}
		counters[w].lengthPrefixed = w < cfg.protobuf
		if counters[w].lengthPrefixed {
			req.Header.Set("Accept", request.MediaProtobuf)
		}
		resp, err := client.Do(req)
		if err != nil {
			tb.Fatalf("watch %d: %v", w, err)
		}
		if got := resp.Header.Get("Content-Type"); counters[w].lengthPrefixed != strings.HasPrefix(got, request.MediaProtobuf) {
			tb.Fatalf("watch %d: Content-Type %q", w, got)
		}
		counters[w].at = make([]int64, 0, cfg.events)
		readers.Go(func() {
			defer resp.Body.Close()
			counters[w].run(resp.Body, base, cfg.events)
		})
	}
	if err := s.WaitForWatchers(ctx, "configmaps", cfg.watchers); err != nil {
		tb.Fatal(err)
	}

	// Bodies prepared before the clock starts; each update changes one
	// object's data.
	cms := s.registry.Lookup("", "v1", "configmaps")
	bodies := make([][]byte, cfg.events)
	names := make([]string, cfg.events)
	for i := range bodies {
		idx := (i * 7919) % cfg.objects
		names[i] = fmt.Sprintf("cm-%06d", idx)
		bodies[i] = fmt.Appendf(nil, `{"metadata":{"name":%q,"labels":{"shard":"%d"}},"data":{"key":"updated-%d"}}`, names[i], idx%10, i)
	}
	sent := make([]int64, cfg.events)
	// The writer keeps its thread so that thread's CPU time is its own.
	runtime.LockOSThread()
	writerStart := threadCPU()
	cpuStart := processCPU()
	writeStart := time.Now()
	var tick *time.Ticker
	if cfg.rate > 0 {
		tick = time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
	}
	for i := 0; i < cfg.events; {
		due := cfg.events
		if cfg.rate > 0 {
			<-tick.C
			due = min(cfg.events, int(time.Since(writeStart).Seconds()*cfg.rate)+1)
		}
		for ; i < due; i++ {
			sent[i] = int64(time.Since(base))
			in, err := request.DecodeObject(s.registry, cms, "v1", bodies[i], "")
			if err != nil {
				tb.Fatal(err)
			}
			if _, _, err := s.update(ctx, cms, "default", "", in, writeOptions{manager: "load"}); err != nil {
				tb.Fatalf("update %d: %v", i, err)
			}
		}
	}
	res.writeTime = time.Since(writeStart)
	res.writerCPU = threadCPU() - writerStart
	runtime.UnlockOSThread()

	done := make(chan struct{})
	go func() { readers.Wait(); close(done) }()
	drain := time.NewTimer(cfg.drain)
	defer drain.Stop()
	select {
	case <-done:
	case <-drain.C:
		cancel()
		<-done
	}
	res.cpu = processCPU() - cpuStart
	res.tally(counters, sent)
	return res
}

// tally adds what the watchers read to res: reads, complete and short
// watchers, and each event's lag from when it was sent (sent, offsets
// from the load's base time) to when its last watcher read it.
func (res *fanoutResult) tally(counters []frameCounter, sent []int64) {
	events := len(sent)
	var last int64
	lastOf := make([]int64, events)
	for w, fc := range counters {
		res.reads += fc.reads
		if len(fc.at) >= events {
			res.complete++
		} else {
			res.short = append(res.short, fmt.Sprintf("watcher %d: %d of %d frames (%v)", w, len(fc.at), events, fc.err))
		}
		for i, at := range fc.at[:min(len(fc.at), events)] {
			lastOf[i] = max(lastOf[i], at)
			last = max(last, at)
		}
	}
	res.total = time.Duration(last - sent[0])
	res.lag = make([]time.Duration, events)
	for i := range lastOf {
		res.lag[i] = time.Duration(lastOf[i] - sent[i])
	}
	slices.Sort(res.lag)
}

// loadAverage returns the machine's load averages as the kernel reports
// them ("" where there is no /proc).
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// BenchmarkFanOutLoad measures deliveries per second with 100 watchers and
// updates written back to back in process (each op is one update seen by
// every watcher): the throughput when the writer never waits, so watchers
// always have several events queued. It runs with every watcher on JSON
// (json) and with half of them on protobuf (half-protobuf).
func BenchmarkFanOutLoad(b *testing.B) {
	for _, wire := range []struct {
		name     string
		protobuf int
	}{{"json", 0}, {"half-protobuf", 50}} {
		b.Run(wire.name, func(b *testing.B) {
			cfg := fanoutLoad{objects: 1000, watchers: 100, protobuf: wire.protobuf, events: max(b.N, 100), queue: max(b.N, 100) + 10, drain: time.Minute}
			r := runFanoutLoad(b, context.Background(), cfg)
			if r.complete != cfg.watchers {
				b.Fatalf("%d of %d watchers complete: %v", r.complete, cfg.watchers, r.short)
			}
			b.ReportMetric(r.deliveriesPerSec(cfg), "deliveries/s")
			b.ReportMetric(float64(r.lagAt(0.99).Microseconds()), "p99-lag-µs")
			b.ReportMetric(float64(r.fanoutCPUPerDelivery().Nanoseconds()), "fanout-cpu-ns/delivery")
			b.ReportMetric(float64(r.writerCPU.Microseconds())/float64(cfg.events), "writer-cpu-µs/update")
			b.ReportMetric(float64(cfg.watchers*cfg.events)/float64(max(r.reads, 1)), "frames/read")
		})
	}
}

// TestFrameCounterLengthPrefixed feeds protobuf watch frames to the load
// harness's counter in pieces of every size from 1 to 9 bytes: each frame
// is counted once, when its last byte arrives.
func TestFrameCounterLengthPrefixed(t *testing.T) {
	var stream []byte
	var ends []int
	for _, size := range []int{5, 0, 1, 300, 4} {
		stream = binary.BigEndian.AppendUint32(stream, uint32(size))
		stream = append(stream, bytes.Repeat([]byte{0x0a}, size)...)
		ends = append(ends, len(stream))
	}
	for piece := 1; piece <= 9; piece++ {
		fc := frameCounter{lengthPrefixed: true}
		var got []int
		for off := 0; off < len(stream); off += piece {
			end := min(off+piece, len(stream))
			for k := fc.prefixedFrames(stream[off:end]); k > 0; k-- {
				got = append(got, end)
			}
		}
		// A frame ending inside a piece is counted at the piece's end.
		want := make([]int, len(ends))
		for i, e := range ends {
			want[i] = min((e+piece-1)/piece*piece, len(stream))
		}
		assert.Equal(t, want, got, "pieces of %d bytes", piece)
	}
}
