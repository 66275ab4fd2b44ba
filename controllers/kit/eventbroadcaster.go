package kit

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// EventBroadcaster writes events.k8s.io/v1 Events the way client-go's
// events package writes them for kube-scheduler: one Event named
// "<object>.<hex nanoseconds>" in the object's namespace, with its event
// time, reporting controller and instance and action. A repeat of an
// event (same type, action, reason, reporter, regarded and related
// object; the note may differ) becomes a series: the second occurrence
// patches series.count 2 onto the first Event; later ones are counted in
// memory and written when the series ends (nothing repeated for
// seriesFinish) or every seriesRefresh. Events are sent by Run, in
// order, so recording never blocks a controller; when the buffer is full
// an event is dropped, as the real broadcaster drops them.
//
// Build recorders with NewRecorder, one per reporting controller.
type EventBroadcaster struct {
	client *rest.Client
	clock  clock.Clock
	log    *slog.Logger
	queue  chan *api.EventV1
	names  eventNames

	// mu guards series, the last Event written for each repeat key
	// (with the series counted since), kept until the series ends.
	mu     sync.Mutex
	series map[eventV1Key]*api.EventV1
}

// eventV1Key is what makes two events repeats of one another.
type eventV1Key struct {
	typ, action, reason, controller, instance string
	regarding, related                        api.ObjectReference
}

// The real broadcaster's timings and bounds.
const (
	// seriesFinish: a series with no repeat for this long is written
	// a last time and forgotten; so is an event never repeated.
	seriesFinish = 6 * time.Minute
	// seriesRefresh: how often every open series is written.
	seriesRefresh = 30 * time.Minute
	// eventsV1Buffer is how many events may wait to be written (the
	// real broadcaster's queue length).
	eventsV1Buffer = 1000
	// maxOpenSeries bounds the events remembered for repeats: past it
	// they are forgotten, and a repeat starts a new Event.
	maxOpenSeries = 4096
)

// NewEventBroadcaster returns a broadcaster writing through client, its
// times read from clk (nil is the wall clock).
func NewEventBroadcaster(client *rest.Client, clk clock.Clock, log *slog.Logger) *EventBroadcaster {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &EventBroadcaster{client: client, clock: clock.Or(clk), log: log,
		queue: make(chan *api.EventV1, eventsV1Buffer), series: map[eventV1Key]*api.EventV1{}}
}

// EventRecorder records events.k8s.io/v1 Events for one reporting
// controller. A nil EventRecorder records nothing.
type EventRecorder struct {
	b                    *EventBroadcaster
	controller, instance string
}

// NewRecorder returns the recorder of controller ("default-scheduler"),
// whose reporting instance is "<controller>-<hostname>" as on a real
// cluster. A nil broadcaster returns a nil recorder.
func (b *EventBroadcaster) NewRecorder(controller string) *EventRecorder {
	if b == nil {
		return nil
	}
	host, _ := os.Hostname()
	return &EventRecorder{b: b, controller: controller, instance: controller + "-" + host}
}

// Eventf records an event of type typ about regarding, with related (nil
// for none), its reason, the action taken or failed and the note
// formatted from format and args.
func (r *EventRecorder) Eventf(regarding api.ObjectReference, related *api.ObjectReference, typ, reason, action, format string, args ...any) {
	if r == nil {
		return
	}
	now := r.b.clock.Now()
	ev := &api.EventV1{
		TypeMeta:            meta.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta:          meta.ObjectMeta{Name: r.b.names.next(regarding.Name, now), Namespace: eventNamespace(regarding)},
		EventTime:           api.NewMicroTime(now),
		ReportingController: r.controller,
		ReportingInstance:   r.instance,
		Action:              action,
		Reason:              reason,
		Regarding:           regarding,
		Related:             related,
		Note:                fmt.Sprintf(format, args...),
		Type:                typ,
	}
	select {
	case r.b.queue <- ev:
	default:
		r.b.log.Warn("event buffer full; dropping event", "object", regarding.Name, "reason", reason)
	}
}

// Run writes recorded events, and ends and refreshes series on the
// clock, until ctx is cancelled.
func (b *EventBroadcaster) Run(ctx context.Context) error {
	finish, stopFinish := b.clock.NewTimer(seriesFinish)
	refresh, stopRefresh := b.clock.NewTimer(seriesRefresh)
	defer func() { stopFinish(); stopRefresh() }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-b.queue:
			b.record(ctx, ev)
		case <-finish:
			b.finishSeries(ctx)
			finish, stopFinish = b.clock.NewTimer(seriesFinish)
		case <-refresh:
			b.refreshSeries(ctx)
			refresh, stopRefresh = b.clock.NewTimer(seriesRefresh)
		}
	}
}

// record writes ev, or counts it on the series of an earlier copy.
func (b *EventBroadcaster) record(ctx context.Context, ev *api.EventV1) {
	key := eventV1Key{typ: ev.Type, action: ev.Action, reason: ev.Reason, controller: ev.ReportingController,
		instance: ev.ReportingInstance, regarding: ev.Regarding}
	if ev.Related != nil {
		key.related = *ev.Related
	}
	now := api.NewMicroTime(b.clock.Now())
	b.mu.Lock()
	prev := b.series[key]
	var write *api.EventV1
	switch {
	case prev != nil && prev.Series != nil:
		prev.Series.Count++
		prev.Series.LastObservedTime = now
	case prev != nil:
		prev.Series = &api.EventSeries{Count: 2, LastObservedTime: now}
		write = copyEventV1(prev)
	default:
		if len(b.series) >= maxOpenSeries {
			clear(b.series)
		}
		b.series[key] = ev
		write = copyEventV1(ev)
	}
	b.mu.Unlock()
	if write != nil {
		b.write(ctx, write)
	}
}

// copyEventV1 copies an event deeply enough to send it while the
// original's series goes on counting.
func copyEventV1(ev *api.EventV1) *api.EventV1 {
	c := *ev
	if ev.Series != nil {
		s := *ev.Series
		c.Series = &s
	}
	return &c
}

// write sends ev: a strategic merge patch of its series onto the Event
// already written, or a create when it has no series or the first copy
// is gone.
func (b *EventBroadcaster) write(ctx context.Context, ev *api.EventV1) {
	t := Target{Group: "events.k8s.io", Version: "v1", Resource: "events", Namespace: ev.Namespace}
	var err error
	if ev.Series != nil {
		patch := map[string]any{"series": ev.Series}
		err = b.client.Patch(rest.StrategicMergePatchType).Group(t.Group).Version(t.Version).
			Namespace(t.Namespace).Resource(t.Resource).Name(ev.Name).Body(patch).Do(ctx).Error()
		if err == nil || !rest.IsNotFound(err) {
			b.logFailure(ctx, ev, err)
			return
		}
	}
	ev.ResourceVersion = ""
	err = Create(ctx, b.client, t, ev, nil)
	b.logFailure(ctx, ev, err)
}

// logFailure logs a write that failed, unless the broadcaster is
// stopping.
func (b *EventBroadcaster) logFailure(ctx context.Context, ev *api.EventV1, err error) {
	if err != nil && ctx.Err() == nil {
		b.log.Info("write event", "object", ev.Regarding.Name, "reason", ev.Reason, "err", err)
	}
}

// finishSeries writes a last time each series with no repeat for
// seriesFinish and forgets it, and forgets each event that was never
// repeated in that time.
func (b *EventBroadcaster) finishSeries(ctx context.Context) {
	cutoff := b.clock.Now().Add(-seriesFinish)
	var ended []*api.EventV1
	b.mu.Lock()
	for key, ev := range b.series {
		switch {
		case ev.Series != nil && ev.Series.LastObservedTime.Before(cutoff):
			ended = append(ended, copyEventV1(ev))
			delete(b.series, key)
		case ev.Series == nil && ev.EventTime.Before(cutoff):
			delete(b.series, key)
		}
	}
	b.mu.Unlock()
	for _, ev := range ended {
		b.write(ctx, ev)
	}
}

// refreshSeries writes every open series.
func (b *EventBroadcaster) refreshSeries(ctx context.Context) {
	var open []*api.EventV1
	b.mu.Lock()
	for _, ev := range b.series {
		if ev.Series != nil {
			open = append(open, copyEventV1(ev))
		}
	}
	b.mu.Unlock()
	for _, ev := range open {
		b.write(ctx, ev)
	}
}
