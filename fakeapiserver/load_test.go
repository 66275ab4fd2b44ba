//go:build load

// The load test is behind the "load" build tag because it needs minutes of
// CPU (100,000 objects, 500 watchers): too heavy for every `make test`.
// Run it with:
//
//	go test -tags load -run TestLoad -v -timeout 15m ./fakeapiserver/

package fakeapiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/kubeproto"
)

func TestLoad(t *testing.T) {
	const (
		objects  = 100_000
		watchers = 500
		updates  = 2_000
		budget   = 10 * time.Minute
	)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	s, c := newTestServer(t, Options{CompactionInterval: -1, HistoryLimit: 20_000, WatchQueueLength: updates + 10})
	start := time.Now()

	// Create through the same path as POST, four at a time.
	require.NoError(t, loadConfigMaps(ctx, s, objects, 4))
	t.Logf("created %d objects in %v", objects, time.Since(start))

	// A full list and a paginated list.
	t0 := time.Now()
	r := c.get(cmPath)
	require.Equal(t, http.StatusOK, r.code)
	var l listBody
	require.NoError(t, json.Unmarshal(r.body, &l))
	require.Len(t, l.Items, objects)
	t.Logf("full list: %d items, %d MB, %v", len(l.Items), len(r.body)>>20, time.Since(t0))
	t0 = time.Now()
	names, ok := paginate(c, cmPath+"?limit=500")
	require.True(t, ok)
	require.Len(t, names, objects)
	t.Logf("paginated list (limit=500): %v", time.Since(t0))

	// 500 watchers from the current resourceVersion.
	rv := fmt.Sprint(s.ResourceVersion())
	tr := &http.Transport{MaxIdleConnsPerHost: watchers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	seen := make([]int, watchers)
	// With KUBECACHE_LOAD_PROTOBUF=1, half the watchers of each kind ask
	// for protobuf (as client-go's typed informers do).
	protobuf := os.Getenv("KUBECACHE_LOAD_PROTOBUF") == "1"
	var readers sync.WaitGroup
	for w := range watchers {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+cmPath+"?watch=1&labelSelector=shard%3D1&resourceVersion="+rv, nil)
		if w%2 == 0 {
			req.URL.RawQuery = "watch=1&resourceVersion=" + rv
		}
		pb := protobuf && w%4 >= 2
		if pb {
			req.Header.Set("Accept", "application/vnd.kubernetes.protobuf, application/json")
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer resp.Body.Close()
			want := updates
			if w%2 == 1 {
				want = updates / 2
			}
			if pb {
				readProtobufModified(resp.Body, want, &seen[w])
				return
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if !bytes.HasPrefix(sc.Bytes(), []byte(`{"type":"MODIFIED"`)) {
					continue
				}
				seen[w]++
				if seen[w] == want {
					return
				}
			}
		}()
	}
	require.NoError(t, s.WaitForWatchers(ctx, "configmaps", watchers))
	t0 = time.Now()
	res := s.registry.Lookup("", "v1", "configmaps")
	for i := range updates {
		idx := (i*5 + 1) % objects // shards 1 and 6 in turn
		name := fmt.Sprintf("cm-%06d", idx)
		cur := s.store.Get("/configmaps", "default/"+name)
		in, err := request.DecodeObject(s.registry, res, "v1", []byte(fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"shard":"%d"}},"data":{"key":"updated-%d"}}`, name, idx%10, i)), "")
		require.NoError(t, err)
		in.Meta.ResourceVersion = cur.Meta.ResourceVersion
		_, _, err = s.update(ctx, res, "default", "", in, writeOptions{manager: "load"})
		require.NoError(t, err)
	}
	readers.Wait()
	elapsed := time.Since(t0)
	for w, n := range seen {
		want := updates
		if w%2 == 1 {
			want = updates / 2
		}
		assert.Equal(t, want, n, "watcher %d", w)
	}
	delivered := watchers / 2 * (updates + updates/2)
	t.Logf("%d updates to %d watchers (protobuf for half: %v): %d events in %v (%.0f events/s)", updates, watchers, protobuf, delivered, elapsed, float64(delivered)/elapsed.Seconds())
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use after the run: %d MB; total %v", ms.HeapInuse>>20, time.Since(start))
	require.NoError(t, ctx.Err(), "the load test exceeded its time budget")
}

// readProtobufModified counts the MODIFIED frames of a protobuf watch
// stream into seen until want.
func readProtobufModified(r io.Reader, want int, seen *int) {
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [4]byte
	var frame []byte
	for {
		// One buffer for every frame, as the JSON readers' scanner.
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return
		}
		frame = slices.Grow(frame[:0], int(binary.BigEndian.Uint32(hdr[:])))[:binary.BigEndian.Uint32(hdr[:])]
		if _, err := io.ReadFull(br, frame); err != nil {
			return
		}
		if typ, _, err := kubeproto.ParseWatchEvent(frame); err != nil || typ != "MODIFIED" {
			continue
		}
		if *seen++; *seen == want {
			return
		}
	}
}

// TestLoadFanOut checks fan-out under load: 100,000 objects loaded, 500
// HTTP watchers, 1,000 updates/s for KUBECACHE_FANOUT_SECONDS (default 10)
// written in process through the update path. Every watcher must receive
// every event (none dropped as too slow, with a queue of two seconds of
// events) and the lag from write to the last watcher's receipt must stay
// bounded. KUBECACHE_FANOUT_PROTOBUF (default 0) is how many of the
// watchers ask for protobuf, as client-go's typed informers do.
func TestLoadFanOut(t *testing.T) {
	env := func(name string, def int) int {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		require.NoError(t, err, name)
		return n
	}
	seconds := env("KUBECACHE_FANOUT_SECONDS", 10)
	cfg := fanoutLoad{objects: 100_000, watchers: 500, rate: 1000, events: 1000 * seconds, queue: 2000, drain: 30 * time.Second,
		protobuf: env("KUBECACHE_FANOUT_PROTOBUF", 0)}
	require.LessOrEqual(t, cfg.protobuf, cfg.watchers, "KUBECACHE_FANOUT_PROTOBUF")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Logf("load average before: %s", loadAverage())
	r := runFanoutLoad(t, ctx, cfg)
	t.Logf("loaded %d objects in %v; wrote %d updates in %v (%.0f/s)", cfg.objects, r.loadTime, cfg.events, r.writeTime, float64(cfg.events)/r.writeTime.Seconds())
	t.Logf("%d deliveries (%d of the %d watchers in protobuf) in %v: %.0f deliveries/s; %v", cfg.watchers*cfg.events, cfg.protobuf, cfg.watchers, r.total, r.deliveriesPerSec(cfg), r)
	t.Logf("load average after: %s", loadAverage())
	assert.Equal(t, cfg.watchers, r.complete, "watchers that received every event: %v", r.short)
	assert.Less(t, r.writeTime, time.Duration(float64(seconds)*1.1*float64(time.Second)), "the writer fell behind 1,000 updates/s")
	assert.Less(t, r.lagAt(0.99), time.Second, "p99 lag")
	require.NoError(t, ctx.Err(), "the load test exceeded its time budget")
}
