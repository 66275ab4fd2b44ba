package informer_test

import (
	"context"
	"os"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/metrics"
	"github.com/kubecache/kubecache/metrics/promtext"
	"github.com/kubecache/kubecache/reflector"
)

// Example_metrics counts what an informer, its reflector and its handlers
// do in a metrics.Registry, and writes some of it in the Prometheus text
// format (promtext.Handler serves the whole registry over HTTP).
func Example_metrics() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	c, stop := connect(srv)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{"a", "b"} {
		cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name}}
		if err := c.Post().Namespace("default").Resource("configmaps").Body(cm).Do(ctx).Error(); err != nil {
			panic(err)
		}
	}
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: "default"})
	if err != nil {
		panic(err)
	}
	var reg metrics.Registry
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{Name: "cms", Metrics: &reg})
	if err != nil {
		panic(err)
	}
	regn, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{}, informer.HandlerOptions{Name: "reconcile"})
	if err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	<-regn.Synced()
	cancel()
	<-done

	var some []metrics.Metric
	for _, m := range reg.Snapshot() {
		switch {
		case m.Name == "kubecache_informer_events_total",
			m.Name == "kubecache_reflector_lists_total",
			strings.HasPrefix(m.Name, "kubecache_informer_handler_duration"):
			m.Buckets, m.Counts, m.Sum = nil, nil, 0 // durations vary
			some = append(some, m)
		}
	}
	if err := promtext.Write(os.Stdout, some); err != nil {
		panic(err)
	}
	// Output:
	// # TYPE kubecache_informer_events_total counter
	// kubecache_informer_events_total{informer="cms",type="add"} 2
	// # TYPE kubecache_informer_handler_duration_seconds histogram
	// kubecache_informer_handler_duration_seconds_bucket{informer="cms",handler="reconcile",le="+Inf"} 2
	// kubecache_informer_handler_duration_seconds_sum{informer="cms",handler="reconcile"} 0
	// kubecache_informer_handler_duration_seconds_count{informer="cms",handler="reconcile"} 2
	// # TYPE kubecache_reflector_lists_total counter
	// kubecache_reflector_lists_total{reflector="cms",result="ok"} 1
}
