package fakeapiserver

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Benchmarks behind docs/performance.md ("The fake API server").

// podJSON is a pod of realistic size (~2 KB).
func podJSON(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"app":"web","tier":"frontend","pod-template-hash":"5d8f7c9b6"},"annotations":{"kubernetes.io/psp":"restricted","prometheus.io/scrape":"true"}},"spec":{"nodeName":"node-1","serviceAccountName":"default","restartPolicy":"Always","containers":[{"name":"web","image":"registry.example.com/team/web:1.2.3","ports":[{"containerPort":8080,"protocol":"TCP"}],"env":[{"name":"MODE","value":"production"},{"name":"LOG_LEVEL","value":"info"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}},"volumeMounts":[{"name":"config","mountPath":"/etc/web"}]}],"volumes":[{"name":"config","configMap":{"name":"web-config"}}]},"status":{"phase":"Running"}}`, name)
}

// BenchmarkCreate measures POST throughput through the handler (no
// network): decode, validate, managedFields, commit, encode.
func BenchmarkCreate(b *testing.B) {
	s := New(Options{CompactionInterval: -1})
	defer s.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", strings.NewReader(podJSON(fmt.Sprintf("pod-%d", i))))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}

// BenchmarkFanOut measures events delivered per second across 100 watchers
// over loopback HTTP: each op is one update seen by every watcher.
func BenchmarkFanOut(b *testing.B) {
	const watchers = 100
	s := New(Options{CompactionInterval: -1, WatchQueueLength: 100000})
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: watchers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	post := func(body string) string {
		resp, err := client.Post(s.URL()+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		return fmt.Sprint(s.ResourceVersion())
	}
	rv := post(`{"metadata":{"name":"hot"},"data":{"n":"0"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	counts := make([]chan int, watchers)
	for w := range watchers {
		counts[w] = make(chan int, 1)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion="+rv, nil)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			n := 0
			for sc.Scan() {
				n++
				select {
				case <-counts[w]:
				default:
				}
				counts[w] <- n
			}
		}()
	}
	if err := s.WaitForWatchers(ctx, "configmaps", watchers); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		req, _ := http.NewRequest(http.MethodPatch, s.URL()+"/api/v1/namespaces/default/configmaps/hot", strings.NewReader(fmt.Sprintf(`{"data":{"n":"%d"}}`, i+1)))
		req.Header.Set("Content-Type", mergePatch)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	// Wait until every watcher has seen every event.
	for w := range watchers {
		for n := 0; n < b.N; {
			n = <-counts[w]
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*watchers)/b.Elapsed().Seconds(), "events/s")
	cancel()
	wg.Wait()
}
