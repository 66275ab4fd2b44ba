//go:build load

package fakeapiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkListProtobufVsJSON measures a full, unpaged LIST of pods over
// loopback in JSON and in protobuf (docs/performance.md). The pods are
// loaded once; the protobuf items are encoded on the first protobuf LIST
// and served from each object's cached encoding after that, as the JSON
// list is served from the stored bytes. KUBECACHE_LIST_PODS sets the
// number of pods (default 10,000; the figures use 100,000). Run it with
// -tags load, beside the other load tests.
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
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	list := func(accept string) int64 {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/v1/pods", nil)
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("list: %d %v", resp.StatusCode, err)
		}
		return n
	}
	list("application/vnd.kubernetes.protobuf") // the first encodes every item
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		b.Run(accept, func(b *testing.B) {
			var n int64
			for b.Loop() {
				n = list(accept)
			}
			b.ReportMetric(float64(n)/float64(pods), "bytes/pod")
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/list")
		})
	}
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
