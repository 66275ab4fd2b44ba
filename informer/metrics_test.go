package informer_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/metrics"
)

// Every metric of the informer and its reflector, after a list and a few
// changes delivered to one handler.
func TestInformerMetrics(t *testing.T) {
	e := newEnv(t)
	var reg metrics.Registry
	e.create("default", "a", nil)
	inf := e.informerFor("default", informer.Options[*ConfigMap]{Metrics: &reg})
	rec := newRecorder()
	_, err := inf.AddEventHandler(rec, informer.HandlerOptions{Name: "rec"})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)
	b := e.create("default", "b", nil)
	e.update(b, map[string]string{"k": "v"})
	e.remove("default", "a")
	rec.waitLen(t, 4)

	get := func(name string, labels ...string) metrics.Metric {
		t.Helper()
		m, ok := reg.Get(name, labels...)
		require.True(t, ok, "%s%v", name, labels)
		return m
	}
	inf1 := []string{"informer", "configmaps"}
	h := append(inf1, "handler", "rec")
	for typ, n := range map[string]float64{"add": 2, "update": 1, "delete": 1} {
		assert.Equal(t, n, get("kubecache_informer_events_total", append(inf1, "type", typ)...).Value, typ)
	}
	assert.Equal(t, 1.0, get("kubecache_informer_store_objects", inf1...).Value)
	assert.GreaterOrEqual(t, get("kubecache_informer_lists_total", inf1...).Value, 1.0)
	assert.Equal(t, uint64(4), get("kubecache_informer_handler_latency_seconds", h...).Count)
	// A call's duration is observed after the handler returns, so the
	// recorder can hold the fourth event before its duration is in.
	require.Eventually(t, func() bool {
		m, ok := reg.Get("kubecache_informer_handler_duration_seconds", h...)
		return ok && m.Count == 4
	}, time.Minute, time.Millisecond, "four handler durations")
	get("kubecache_informer_handler_backlog", h...)
	refl := []string{"reflector", "configmaps"}
	assert.GreaterOrEqual(t, get("kubecache_reflector_lists_total", append(refl, "result", "ok")...).Value, 1.0)
	get("kubecache_reflector_list_duration_seconds", refl...)
}
