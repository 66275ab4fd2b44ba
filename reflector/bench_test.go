package reflector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/selector"
)

// benchObjects is the fixed data set of the end-to-end benchmarks: 10,000
// ConfigMaps of about 400 bytes each.
const benchObjects = 10000

// benchServer starts a fake server holding benchObjects ConfigMaps.
func benchServer(b *testing.B) *fakeapiserver.Server {
	b.Helper()
	srv := fakeapiserver.NewForTest(b, fakeapiserver.Options{})
	c := newClient(b, srv.URL())
	ctx := context.Background()
	for i := range benchObjects {
		cm := configMap(fmt.Sprintf("cm-%05d", i), "x")
		cm.Labels = map[string]string{"app": "bench", "tier": fmt.Sprint(i % 7)}
		cm.Data["payload"] = fmt.Sprintf("%0300d", i)
		require.NoError(b, c.Post().Namespace(testNamespace).Resource("configmaps").Body(cm).Do(ctx).Error())
	}
	return srv
}

// syncOnce runs a reflector over store until its first sync and returns
// what its Replace reported.
func syncOnce(b *testing.B, srv *fakeapiserver.Server, store Store[*ConfigMap], opts Options, unusable bool) Replaced {
	c := newClient(b, srv.URL())
	lw := NewListWatchFromClient[*ConfigMap](c, "configmaps", testNamespace, selector.Fields{})
	synced := make(chan Replaced, 1)
	opts.Trace = func(e TraceEvent) {
		if rep, ok := e.(Replaced); ok {
			synced <- rep
		}
	}
	r, err := NewReflector[*ConfigMap](lw, store, opts)
	require.NoError(b, err)
	r.m.unusable = unusable
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	var rep Replaced
	select {
	case rep = <-synced:
	case <-time.After(time.Minute):
		b.Fatal("no sync within a minute")
	}
	cancel()
	<-done
	c.CloseIdleConnections()
	if rep.Objects != benchObjects {
		b.Fatalf("synced %d objects, want %d", rep.Objects, benchObjects)
	}
	return rep
}

// BenchmarkSync measures a first sync end to end against the fake server
// over loopback: the request, the streamed response, decoding every object
// and filling the store. It reports objects per second.
func BenchmarkSync(b *testing.B) {
	srv := benchServer(b)
	for _, tc := range []struct {
		name     string
		opts     Options
		unusable bool
	}{
		{"list-rv0", Options{DisableStreamingList: true}, false},
		{"list-consistent-pages-of-500", Options{DisableStreamingList: true}, true},
		{"streaming-list", Options{}, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				syncOnce(b, srv, cache.NewIndexer[*ConfigMap](nil), tc.opts, tc.unusable)
			}
			b.ReportMetric(float64(benchObjects*b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}

// BenchmarkRelistUnchanged measures a relist of a store that already holds
// every object at the same resourceVersion: each item is recognised with
// meta.PeekMeta and the stored object reused, nothing is decoded.
func BenchmarkRelistUnchanged(b *testing.B) {
	srv := benchServer(b)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"list", Options{DisableStreamingList: true}},
		{"streaming-list", Options{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			store := cache.NewIndexer[*ConfigMap](nil)
			syncOnce(b, srv, store, tc.opts, false)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rep := syncOnce(b, srv, store, tc.opts, false)
				if rep.Reused != benchObjects {
					b.Fatalf("reused %d of %d unchanged objects", rep.Reused, benchObjects)
				}
			}
			b.ReportMetric(float64(benchObjects*b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}

// BenchmarkDecodeItem isolates the per-item cost of the ListerWatcher's
// decoder: a fresh decode, and a reuse through Known.
func BenchmarkDecodeItem(b *testing.B) {
	raw := []byte(`{"metadata":{"name":"cm-00001","namespace":"default","uid":"0b8c","resourceVersion":"1234",` +
		`"creationTimestamp":"2025-01-01T00:00:00Z","labels":{"app":"bench","tier":"1"}},"data":{"v":"x","payload":"` +
		fmt.Sprintf("%0300d", 1) + `"}}`)
	stored := configMap("cm-00001", "x")
	stored.ResourceVersion = "1234"
	b.Run("decode", func(b *testing.B) {
		dec := decoder[*ConfigMap](nil)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := dec(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("peek-and-reuse", func(b *testing.B) {
		dec := decoder[*ConfigMap](func(ns, name, rv string) (*ConfigMap, bool) { return stored, rv == "1234" })
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := dec(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("peek-miss-then-decode", func(b *testing.B) {
		dec := decoder[*ConfigMap](func(ns, name, rv string) (*ConfigMap, bool) { return nil, false })
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := dec(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
