package kit

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/internal/await"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// eventsWatch is a broadcaster on a fake server with a fake clock, and a
// watch of the events.k8s.io Events it writes in namespace default.
type eventsWatch struct {
	t      *testing.T
	clock  *clock.Fake
	client *rest.Client
	b      *EventBroadcaster
	w      watch.Interface[*api.EventV1]
}

func newEventsWatch(t *testing.T) *eventsWatch {
	t.Helper()
	fc := clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	client := newTestClient(t, fc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	w, err := rest.WatchAs[*api.EventV1](ctx, client.Get().Group("events.k8s.io").Version("v1").Namespace("default").Resource("events"))
	require.NoError(t, err)
	b := NewEventBroadcaster(client, fc, nil)
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		w.Stop()
		cancel()
		require.NoError(t, <-done)
	})
	// Run's two timers, the series' end and refresh, are set.
	require.NoError(t, fc.WaitForTimers(ctx, 2))
	return &eventsWatch{t: t, clock: fc, client: client, b: b, w: w}
}

// next is the next event the watch delivers.
func (e *eventsWatch) next() watch.Event[*api.EventV1] {
	e.t.Helper()
	ev := await.Receive(e.t, e.w.ResultChan(), 30*time.Second)
	require.NoError(e.t, ev.Err)
	return ev
}

// TestEventBroadcasterSeries: an event is written once; its first repeat
// patches series.count 2 onto it; later repeats are counted and written
// when the series ends (nothing repeated for six minutes), after which a
// repeat starts a new Event. An event that differs in its reason, or in
// its related object, is an Event of its own.
func TestEventBroadcasterSeries(t *testing.T) {
	e := newEventsWatch(t)
	r := e.b.NewRecorder("default-scheduler")
	pod := api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", UID: "u1", APIVersion: "v1"}
	node := &api.ObjectReference{Kind: "Node", Name: "n1", APIVersion: "v1"}

	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "0/%d nodes are available", 3)
	first := e.next()
	require.Equal(t, watch.Added, first.Type)
	host, _ := os.Hostname()
	assert.Equal(t, "default-scheduler", first.Object.ReportingController)
	assert.Equal(t, "default-scheduler-"+host, first.Object.ReportingInstance)
	assert.Equal(t, "0/3 nodes are available", first.Object.Note)
	assert.Equal(t, pod, first.Object.Regarding)
	assert.Nil(t, first.Object.Series)

	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "0/%d nodes are available", 4)
	second := e.next()
	require.Equal(t, watch.Modified, second.Type)
	assert.Equal(t, first.Object.Name, second.Object.Name, "the repeat is counted on the first Event")
	require.NotNil(t, second.Object.Series)
	assert.Equal(t, int32(2), second.Object.Series.Count)
	assert.Equal(t, "0/3 nodes are available", second.Object.Note, "the note stays the first one's")

	// Other reasons and related objects are their own Events; the two
	// repeats between are only counted.
	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "again")
	r.Eventf(pod, nil, api.EventNormal, "Scheduled", "Binding", "bound")
	other := e.next()
	require.Equal(t, watch.Added, other.Type)
	assert.Equal(t, "Scheduled", other.Object.Reason)
	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "again")
	r.Eventf(pod, node, api.EventWarning, "FailedScheduling", "Scheduling", "on a node")
	related := e.next()
	require.Equal(t, watch.Added, related.Type)
	require.NotNil(t, related.Object.Related)
	assert.Equal(t, *node, *related.Object.Related)

	// Six minutes without a repeat end the series: it is written with
	// every repeat counted.
	e.clock.Step(seriesFinish + time.Second)
	last := e.next()
	require.Equal(t, watch.Modified, last.Type)
	assert.Equal(t, first.Object.Name, last.Object.Name)
	require.NotNil(t, last.Object.Series)
	assert.Equal(t, int32(4), last.Object.Series.Count)

	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "later")
	fresh := e.next()
	require.Equal(t, watch.Added, fresh.Type, "a repeat after the series ended starts a new Event")
	assert.NotEqual(t, first.Object.Name, fresh.Object.Name)
	assert.Nil(t, fresh.Object.Series)
}

// TestEventBroadcasterRecreatesAGoneEvent: when the Event a series is
// counted on is gone (deleted, or expired by its TTL), the next write
// of the series creates it again, with its count.
func TestEventBroadcasterRecreatesAGoneEvent(t *testing.T) {
	e := newEventsWatch(t)
	r := e.b.NewRecorder("default-scheduler")
	pod := api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", UID: "u1", APIVersion: "v1"}
	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "none fits")
	first := e.next()
	require.Equal(t, watch.Added, first.Type)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, e.client.Delete().Group("events.k8s.io").Version("v1").Namespace("default").Resource("events").Name(first.Object.Name).Do(ctx).Error())
	require.Equal(t, watch.Deleted, e.next().Type)

	r.Eventf(pod, nil, api.EventWarning, "FailedScheduling", "Scheduling", "none fits")
	again := e.next()
	require.Equal(t, watch.Added, again.Type)
	assert.Equal(t, first.Object.Name, again.Object.Name)
	require.NotNil(t, again.Object.Series)
	assert.Equal(t, int32(2), again.Object.Series.Count)
}

// TestEventBroadcasterNilRecorder: a nil broadcaster gives a nil
// recorder, which records nothing and does not panic.
func TestEventBroadcasterNilRecorder(t *testing.T) {
	var b *EventBroadcaster
	r := b.NewRecorder("x")
	assert.Nil(t, r)
	r.Eventf(api.ObjectReference{Name: "p"}, nil, api.EventNormal, "R", "A", "n")
}
