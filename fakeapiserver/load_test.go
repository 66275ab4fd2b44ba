//go:build load

// The load test is behind the "load" build tag because it needs minutes of
// CPU (100,000 objects, 500 watchers): too heavy for every `make test`.
// Run it with:
//
//	go test -tags load -run TestLoad -v -timeout 15m ./fakeapiserver/

package fakeapiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := s.registry.lookup("", "v1", "configmaps")
			for i := g; i < objects; i += 4 {
				body := fmt.Sprintf(`{"metadata":{"name":"cm-%06d","labels":{"shard":"%d"}},"data":{"key":"value-%d"}}`, i, i%10, i)
				if _, _, err := s.create(ctx, res, "v1", "default", []byte(body), writeOptions{manager: "load"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
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
	var readers sync.WaitGroup
	for w := range watchers {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+cmPath+"?watch=1&labelSelector=shard%3D1&resourceVersion="+rv, nil)
		if w%2 == 0 {
			req.URL.RawQuery = "watch=1&resourceVersion=" + rv
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			want := updates
			if w%2 == 1 {
				want = updates / 2
			}
			for sc.Scan() {
				if !strings.HasPrefix(sc.Text(), `{"type":"MODIFIED"`) {
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
	res := s.registry.lookup("", "v1", "configmaps")
	for i := range updates {
		idx := (i*5 + 1) % objects // shards 1 and 6 in turn
		name := fmt.Sprintf("cm-%06d", idx)
		cur := s.store.get("/configmaps", "default/"+name)
		in, err := s.decodeObject(res, "v1", []byte(fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"shard":"%d"}},"data":{"key":"updated-%d"}}`, name, idx%10, i)), "")
		require.NoError(t, err)
		in.meta.ResourceVersion = cur.meta.ResourceVersion
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
	t.Logf("%d updates to %d watchers: %d events in %v (%.0f events/s)", updates, watchers, delivered, elapsed, float64(delivered)/elapsed.Seconds())
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use after the run: %d MB; total %v", ms.HeapInuse>>20, time.Since(start))
	require.NoError(t, ctx.Err(), "the load test exceeded its time budget")
}
