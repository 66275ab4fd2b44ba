package kit

import (
	"time"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/meta"
)

// The real recorder's aggregation of similar events: events about one
// object from one source with the same type and reason but different
// messages are similar; once ten such messages are seen within ten
// minutes of one another, the tenth and every further one is written as a single
// Event, "(combined from similar events): <message>", counted and
// re-worded on each repeat.
const (
	aggregateMaxEvents = 10
	aggregateInterval  = 10 * time.Minute
	combinedPrefix     = "(combined from similar events): "
)

// similarEvents is what the recorder remembers of one aggregation key:
// the messages seen, and when the last one was.
type similarEvents struct {
	messages map[string]bool
	last     time.Time
}

// aggregate returns the event to write for ev and the key its repeats
// are counted under: ev itself under its own key while fewer than ten
// similar messages were seen, or else the combined event under the
// aggregation key. r.mu must be held.
func (r *Recorder) aggregate(ev *api.Event, key string, now time.Time) (*api.Event, string) {
	o := ev.InvolvedObject
	aggKey := ev.Source.Component + "\x00" + ev.Source.Host + "\x00" + o.Kind + "\x00" + o.Namespace + "\x00" + o.Name + "\x00" + o.UID + "\x00" +
		o.APIVersion + "\x00" + ev.Type + "\x00" + ev.Reason + "\x00" + ev.ReportingComponent + "\x00" + ev.ReportingInstance
	rec := r.similar[aggKey]
	if rec == nil || now.Sub(rec.last) > aggregateInterval {
		if len(r.similar) >= recorderBuffer {
			clear(r.similar)
		}
		rec = &similarEvents{messages: map[string]bool{}}
		r.similar[aggKey] = rec
	}
	rec.messages[ev.Message] = true
	rec.last = now
	if len(rec.messages) < aggregateMaxEvents {
		return ev, key
	}
	// Keep the set at its bound: forget one message, any.
	for m := range rec.messages {
		delete(rec.messages, m)
		break
	}
	stamp := meta.NewTime(now)
	return &api.Event{
		TypeMeta:       ev.TypeMeta,
		ObjectMeta:     meta.ObjectMeta{Name: r.names.next(o.Name, now), Namespace: ev.Namespace},
		InvolvedObject: o,
		Reason:         ev.Reason,
		Message:        combinedPrefix + ev.Message,
		Source:         ev.Source,
		FirstTimestamp: stamp,
		LastTimestamp:  stamp,
		Count:          1,
		Type:           ev.Type,
	}, "\x01" + aggKey
}
