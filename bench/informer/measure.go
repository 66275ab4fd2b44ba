package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// result is the one JSON line the binary prints: the fields of the
// benchmark harness's result contract (peerbench's benchkit.Result), with
// the same names and meanings, plus a few of kubecache's own.
type result struct {
	Impl      string `json:"impl"`
	Mode      string `json:"mode"`
	Strip     bool   `json:"strip_managed_fields"`
	WatchList bool   `json:"watchlist"`
	Pods      int    `json:"pods"`
	Events    int    `json:"events"`
	// Wire is what the server sent: protobuf, json or mixed.
	Wire string `json:"wire,omitempty"`

	SyncMS            float64 `json:"sync_ms"`
	HandlerSyncMS     float64 `json:"handler_sync_ms"`
	EventsMS          float64 `json:"events_ms"`
	EventsPerSec      float64 `json:"events_per_sec"`
	SyncToLastEventMS float64 `json:"sync_to_last_event_ms"`

	HeapBaseMB          float64 `json:"heap_base_mb"`
	HeapSyncBytesPerObj float64 `json:"heap_sync_bytes_per_obj"`
	HeapEndBytesPerObj  float64 `json:"heap_end_bytes_per_obj"`
	SyncHeapClean       bool    `json:"sync_heap_clean"`
	LiveObjects         int     `json:"live_objects"`

	CPUUserMS        float64 `json:"cpu_user_ms"`
	CPUSysMS         float64 `json:"cpu_sys_ms"`
	CPUTotalMS       float64 `json:"cpu_total_ms"`
	CPUSyncMS        float64 `json:"cpu_sync_ms"`
	CPUWatchMS       float64 `json:"cpu_watch_ms"`
	CPUSyncUSPerObj  float64 `json:"cpu_sync_us_per_obj"`
	CPUWatchUSPerEvt float64 `json:"cpu_watch_us_per_evt"`
	RSSPeakMB        float64 `json:"rss_peak_mb"`
	WallMS           float64 `json:"wall_ms"`

	// Relist figures (only with -relist): the live heap at the end of a
	// relist's LIST, when the old cache and the new list are both held,
	// over the steady state's live heap; how long the relist took; how
	// many objects it reused rather than decoded.
	RelistPeakHeapRatio float64 `json:"relist_peak_heap_ratio,omitempty"`
	RelistMS            float64 `json:"relist_ms,omitempty"`
	RelistObjects       int     `json:"relist_objects,omitempty"`
	RelistReused        int     `json:"relist_reused,omitempty"`

	Counts  counts            `json:"counts"`
	Server  map[string]int64  `json:"server"`
	Env     map[string]string `json:"env"`
	OK      bool              `json:"ok"`
	Error   string            `json:"error,omitempty"`
	Comment string            `json:"comment,omitempty"`
}

// counts are the handler notifications by kind.
type counts struct {
	Initial int64 `json:"initial_adds"`
	Adds    int64 `json:"adds"`
	Updates int64 `json:"updates"`
	Deletes int64 `json:"deletes"`
}

// replayInfo is the part of the replay server's /replay/info a client
// needs: the data set's size and what the watch will deliver.
type replayInfo struct {
	Pods      int    `json:"pods"`
	Events    int    `json:"events"`
	Added     int    `json:"added"`
	Modified  int    `json:"modified"`
	Deleted   int    `json:"deleted"`
	LiveAfter int    `json:"live_after"`
	RV0       string `json:"rv0"`
	FinalRV   string `json:"final_rv"`
}

// getJSON reads url's JSON body into v.
func getJSON(url string, v any) error {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", url, err)
	}
	return nil
}

// fetchInfo reads the replay server's /replay/info.
func fetchInfo(server string) (replayInfo, error) {
	var i replayInfo
	err := getJSON(server+"/replay/info", &i)
	return i, err
}

// fetchStats reads the replay server's cumulative counters.
func fetchStats(server string) (map[string]int64, error) {
	var s struct {
		Stats map[string]int64 `json:"stats"`
	}
	err := getJSON(server+"/replay/stats", &s)
	return s.Stats, err
}

// statsDelta is after-before for every counter; the gauge watches_open is
// taken as it is.
func statsDelta(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if k == "watches_open" {
			out[k] = v
			continue
		}
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// wireOf names the encoding the server answered in, from its response
// counters: protobuf, json, mixed, or "" when it does not count them.
func wireOf(delta map[string]int64) string {
	pb, js := delta["responses_protobuf"], delta["responses_json"]
	switch {
	case pb > 0 && js > 0:
		return "mixed"
	case pb > 0:
		return "protobuf"
	case js > 0:
		return "json"
	}
	return ""
}

// cpuTime is cumulative process CPU time.
type cpuTime struct{ user, sys time.Duration }

func (a cpuTime) sub(b cpuTime) cpuTime { return cpuTime{a.user - b.user, a.sys - b.sys} }
func (a cpuTime) add(b cpuTime) cpuTime { return cpuTime{a.user + b.user, a.sys + b.sys} }
func (a cpuTime) total() time.Duration  { return a.user + a.sys }

// rusage returns the process's CPU times and its peak RSS in bytes.
func rusage() (cpuTime, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuTime{}, 0
	}
	tv := func(t syscall.Timeval) time.Duration {
		return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
	}
	return cpuTime{tv(ru.Utime), tv(ru.Stime)}, int64(ru.Maxrss) * 1024 // Linux reports KiB
}

// liveHeap runs two full collections and returns the bytes of live heap
// objects.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// counter counts handler notifications, timestamps the first and the
// target-th notification after the initial list, and closes done at the
// target-th.
type counter struct {
	start  time.Time // set before the informer runs; times are offsets from it
	target int64
	done   chan struct{}

	initial, adds, updates, deletes, post atomic.Int64
	first, last                           atomic.Int64 // nanoseconds since start
}

// newCounter returns a counter that expects target notifications after the
// initial list.
func newCounter(target int64) *counter {
	c := &counter{target: target, done: make(chan struct{})}
	if target == 0 {
		close(c.done)
	}
	return c
}

func (c *counter) onInitial() { c.initial.Add(1) }
func (c *counter) onAdd()     { c.adds.Add(1); c.postOne() }
func (c *counter) onUpdate()  { c.updates.Add(1); c.postOne() }
func (c *counter) onDelete()  { c.deletes.Add(1); c.postOne() }

func (c *counter) postOne() {
	n := c.post.Add(1)
	if n == 1 {
		c.first.Store(int64(time.Since(c.start)))
	}
	if n == c.target {
		c.last.Store(int64(time.Since(c.start)))
		close(c.done)
	}
}

func (c *counter) posted() int64 { return c.post.Load() }

func (c *counter) counts() counts {
	return counts{c.initial.Load(), c.adds.Load(), c.updates.Load(), c.deletes.Load()}
}

func (c *counter) firstAt() time.Duration { return time.Duration(c.first.Load()) }
func (c *counter) lastAt() time.Duration  { return time.Duration(c.last.Load()) }
