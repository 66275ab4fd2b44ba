package kit

import (
	"context"
	"fmt"
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

// TestRecorderCombinesSimilarEvents: nine messages of one reason about
// one object are nine Events; the tenth is written as one combined Event
// without reporting fields, and later messages count on it and re-word
// it, as client-go's aggregator does (kube-controller-manager's
// Deployment events in e2e/cluster show the same). An identical message
// still counts on its own Event, and ten minutes of quiet start afresh.
func TestRecorderCombinesSimilarEvents(t *testing.T) {
	fc := clock.NewFake(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	client := newTestClient(t, fc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	w, err := rest.WatchAs[*api.Event](ctx, client.Get().Namespace("default").Resource("events"))
	require.NoError(t, err)
	r := NewRecorder(client, fc, nil)
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { w.Stop(); cancel(); require.NoError(t, <-done) })
	next := func() watch.Event[*api.Event] {
		t.Helper()
		ev := await.Receive(t, w.ResultChan(), 30*time.Second)
		require.NoError(t, ev.Err)
		return ev
	}

	src := Source{Component: "deployment-controller"}
	dep := api.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web", UID: "u1", APIVersion: "apps/v1"}
	scale := func(i int) {
		r.Eventf(src, dep, api.EventNormal, "ScalingReplicaSet", "Scaled up replica set web-%d from 0 to 1", i)
	}
	for i := 1; i <= 9; i++ {
		scale(i)
		ev := next()
		require.Equal(t, watch.Added, ev.Type)
		assert.Equal(t, fmt.Sprintf("Scaled up replica set web-%d from 0 to 1", i), ev.Object.Message)
		assert.Equal(t, "deployment-controller", ev.Object.ReportingComponent)
	}
	scale(1) // a message already seen counts on its own Event
	again := next()
	require.Equal(t, watch.Modified, again.Type)
	assert.Equal(t, int32(2), again.Object.Count)
	assert.Equal(t, "Scaled up replica set web-1 from 0 to 1", again.Object.Message)

	scale(10)
	combined := next()
	require.Equal(t, watch.Added, combined.Type)
	assert.Equal(t, "(combined from similar events): Scaled up replica set web-10 from 0 to 1", combined.Object.Message)
	assert.Empty(t, combined.Object.ReportingComponent)
	assert.Equal(t, "deployment-controller", combined.Object.Source.Component)
	scale(11)
	more := next()
	require.Equal(t, watch.Modified, more.Type)
	assert.Equal(t, combined.Object.Name, more.Object.Name)
	assert.Equal(t, int32(2), more.Object.Count)
	assert.Equal(t, "(combined from similar events): Scaled up replica set web-11 from 0 to 1", more.Object.Message)

	// Another reason is not similar.
	r.Eventf(src, dep, api.EventNormal, "DeploymentRollback", "Rolled back")
	assert.Equal(t, "Rolled back", next().Object.Message)

	// After ten quiet minutes a new message is its own Event again.
	fc.Step(aggregateInterval + time.Second)
	scale(12)
	fresh := next()
	require.Equal(t, watch.Added, fresh.Type)
	assert.Equal(t, "Scaled up replica set web-12 from 0 to 1", fresh.Object.Message)
}
