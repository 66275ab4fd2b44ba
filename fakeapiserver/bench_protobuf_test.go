//go:build load

package fakeapiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkListProtobufVsJSON measures a full, unpaged LIST of pods over
// loopback in JSON and in protobuf (docs/performance.md). The pods are
// loaded once; the protobuf items are encoded on the first protobuf LIST
// and served from each object's cached encoding after that, as the JSON
// list is served from the stored bytes. Each op is one LIST in each
// encoding, one after the other, so that both see the same load on a
// shared machine; it reports the median wall and CPU time (the process's:
// server and client) per LIST of each, and the protobuf median over the
// JSON one. KUBECACHE_LIST_PODS sets the number of pods (default 10,000;
// the figures use 100,000). Run it with -tags load, beside the other load
// tests.
func BenchmarkListProtobufVsJSON(b *testing.B) {
	pods := listPods(b, 10_000)
	s := New(Options{CompactionInterval: -1})
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	items := make([]json.RawMessage, pods)
	for i := range items {
		pod := strings.Replace(podJSON(fmt.Sprintf("pod-%06d", i)), `"metadata":{`, `"metadata":{"namespace":"default",`, 1)
		items[i] = json.RawMessage(pod)
	}
	if err := commitAsIs(context.Background(), s, items); err != nil {
		b.Fatal(err)
	}
	items = nil
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	type wire struct {
		name, accept string
		wall, cpu    []time.Duration
		bytes        int64
	}
	wires := []*wire{{name: "json", accept: "application/json"}, {name: "protobuf", accept: "application/vnd.kubernetes.protobuf"}}
	list := func(w *wire) {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/v1/pods", nil)
		req.Header.Set("Accept", w.accept)
		start, cpu := time.Now(), processCPU()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("list: %d %v", resp.StatusCode, err)
		}
		w.wall, w.cpu, w.bytes = append(w.wall, time.Since(start)), append(w.cpu, processCPU()-cpu), n
	}
	list(wires[1]) // the first encodes every item
	wires[1].wall, wires[1].cpu = nil, nil
	runtime.GC()
	for b.Loop() {
		for _, w := range wires {
			list(w)
		}
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return ds[len(ds)/2].Seconds() * 1000
	}
	for _, w := range wires {
		b.ReportMetric(float64(w.bytes)/float64(pods), w.name+"-bytes/pod")
		b.ReportMetric(median(w.wall), w.name+"-ms/list")
		b.ReportMetric(median(w.cpu), w.name+"-cpu-ms/list")
	}
	b.ReportMetric(median(wires[1].wall)/median(wires[0].wall), "protobuf/json-wall")
	b.ReportMetric(median(wires[1].cpu)/median(wires[0].cpu), "protobuf/json-cpu")
}

// BenchmarkGetProtobuf measures GET of one pod over loopback in JSON and
// in protobuf; the protobuf encoding is built on the first GET of a
// version and reused after (docs/performance.md).
func BenchmarkGetProtobuf(b *testing.B) {
	s := New(Options{CompactionInterval: -1})
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	pod := strings.Replace(podJSON("pod-1"), `"metadata":{`, `"metadata":{"namespace":"default",`, 1)
	if err := commitAsIs(context.Background(), s, []json.RawMessage{json.RawMessage(pod)}); err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		b.Run(accept, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/v1/namespaces/default/pods/pod-1", nil)
				req.Header.Set("Accept", accept)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("get: %d", resp.StatusCode)
				}
			}
		})
	}
}
