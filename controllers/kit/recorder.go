package kit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Recorder writes core/v1 Events the way the real components do: one
// Event named "<object>.<hex nanoseconds>" in the object's namespace,
// with source.component and reportingComponent set to the component, and
// a repeat of the same event (same object, type, reason and message)
// counted on the first one (count and lastTimestamp) instead of written
// again; an object's tenth similar event (same reason, another
// message) within ten minutes is written as one combined Event, as the
// real recorder's aggregator does. Events are sent by Run, in order, so recording never blocks a
// controller; when the buffer is full an event is dropped, as the real
// recorder drops them.
type Recorder struct {
	client *rest.Client
	clock  clock.Clock
	log    *slog.Logger
	queue  chan *api.Event

	names eventNames

	// mu guards seen, the name and count of each event already written
	// by its aggregation key.
	mu   sync.Mutex
	seen map[string]*seenEvent
	// similar is, under mu, the aggregation of similar events by their
	// aggregation key (aggregate.go).
	similar map[string]*similarEvents
}

type seenEvent struct {
	namespace, name string
	count           int32
	first           meta.Time
}

// recorderBuffer is how many events may wait to be written.
const recorderBuffer = 4096

// NewRecorder returns a Recorder writing through client, its timestamps
// read from clock (nil is the wall clock).
func NewRecorder(client *rest.Client, clk clock.Clock, log *slog.Logger) *Recorder {
	clk = clock.Or(clk)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recorder{client: client, clock: clk, log: log, queue: make(chan *api.Event, recorderBuffer),
		seen: map[string]*seenEvent{}, similar: map[string]*similarEvents{}}
}

// Source names who records: the component ("deployment-controller",
// "default-scheduler", "kubelet") and, for a kubelet, its node.
type Source struct {
	Component, Host string
}

// Eventf records an event about ref from src. A nil Recorder records
// nothing, so a controller can run without one.
func (r *Recorder) Eventf(src Source, ref api.ObjectReference, typ, reason, format string, args ...any) {
	if r == nil {
		return
	}
	clockNow := r.clock.Now()
	now := meta.NewTime(clockNow)
	ev := &api.Event{
		TypeMeta:           meta.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:         meta.ObjectMeta{Name: r.names.next(ref.Name, clockNow), Namespace: eventNamespace(ref)},
		InvolvedObject:     ref,
		Reason:             reason,
		Message:            fmt.Sprintf(format, args...),
		Source:             api.EventSource{Component: src.Component, Host: src.Host},
		FirstTimestamp:     now,
		LastTimestamp:      now,
		Count:              1,
		Type:               typ,
		ReportingComponent: src.Component,
		ReportingInstance:  src.Host,
	}
	select {
	case r.queue <- ev:
	default:
		r.log.Warn("event buffer full; dropping event", "object", ref.Name, "reason", reason)
	}
}

// eventNames gives events their names, "<object>.<hex nanoseconds>" as
// the real recorders name them, made unique: on a fake clock many events
// share one instant. It is safe for concurrent use.
type eventNames struct {
	// mu guards last, the last suffix given.
	mu   sync.Mutex
	last int64
}

// next returns the name of an event about object recorded at now.
func (n *eventNames) next(object string, now time.Time) string {
	n.mu.Lock()
	stamp := max(now.UnixNano(), n.last+1)
	n.last = stamp
	n.mu.Unlock()
	return fmt.Sprintf("%s.%x", object, stamp)
}

// eventNamespace is the namespace of an event about ref: its object's,
// or default for a cluster-scoped object.
func eventNamespace(ref api.ObjectReference) string {
	if ref.Namespace == "" {
		return "default"
	}
	return ref.Namespace
}

// Run writes recorded events until ctx is cancelled.
func (r *Recorder) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-r.queue:
			if err := r.write(ctx, ev); err != nil && ctx.Err() == nil {
				r.log.Info("write event", "object", ev.InvolvedObject.Name, "reason", ev.Reason, "err", err)
			}
		}
	}
}

// write creates ev, or counts it on an earlier copy of itself; past ten
// similar messages, the combined event stands for it (aggregate).
func (r *Recorder) write(ctx context.Context, ev *api.Event) error {
	key := ev.InvolvedObject.UID + "\x00" + ev.InvolvedObject.Name + "\x00" + ev.Type + "\x00" + ev.Reason + "\x00" + ev.Message + "\x00" + ev.Source.Component + "\x00" + ev.Source.Host
	r.mu.Lock()
	ev, key = r.aggregate(ev, key, r.clock.Now())
	prev := r.seen[key]
	if prev != nil {
		prev.count++
	}
	r.mu.Unlock()
	if prev != nil {
		// The message too: a combined event takes the latest one's.
		patch := map[string]any{"count": prev.count, "lastTimestamp": ev.LastTimestamp, "message": ev.Message}
		err := MergePatch(ctx, r.client, Target{Resource: "events", Namespace: prev.namespace, Name: prev.name}, "", patch, nil)
		if err == nil || !rest.IsNotFound(err) {
			return err
		}
		r.mu.Lock()
		delete(r.seen, key) // the first copy was deleted: start again
		r.mu.Unlock()
	}
	if err := Create(ctx, r.client, Target{Resource: "events", Namespace: ev.Namespace}, ev, nil); err != nil {
		return err
	}
	r.mu.Lock()
	if len(r.seen) >= recorderBuffer {
		clear(r.seen)
	}
	r.seen[key] = &seenEvent{namespace: ev.Namespace, name: ev.Name, count: 1, first: ev.FirstTimestamp}
	r.mu.Unlock()
	return nil
}
