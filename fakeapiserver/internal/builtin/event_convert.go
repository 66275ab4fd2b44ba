package builtin

import (
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Events are one storage served by two groups, as on the real server:
// core/v1 Events are stored as they are, and events.k8s.io/v1 Events are
// read and written through a field-by-field conversion of the same
// objects (message is note, involvedObject is regarding, source is
// deprecatedSource, reportingComponent is reportingController, the
// first and last timestamps and the count are deprecated*). Every field
// has its counterpart, so an event converts both ways without loss.

// eventsV1APIVersion is the apiVersion of the events.k8s.io Events.
const eventsV1APIVersion = "events.k8s.io/v1"

// eventField pairs an events.k8s.io/v1 Event field with the core/v1
// field it is stored as.
type eventField struct {
	events, core string
}

// eventFieldsV1 lists the pairs in the events.k8s.io/v1 type's field
// order, the order its Go type encodes them.
var eventFieldsV1 = []eventField{
	{"eventTime", "eventTime"},
	{"series", "series"},
	{"reportingController", "reportingComponent"},
	{"reportingInstance", "reportingInstance"},
	{"action", "action"},
	{"reason", "reason"},
	{"regarding", "involvedObject"},
	{"related", "related"},
	{"note", "message"},
	{"type", "type"},
	{"deprecatedSource", "source"},
	{"deprecatedFirstTimestamp", "firstTimestamp"},
	{"deprecatedLastTimestamp", "lastTimestamp"},
	{"deprecatedCount", "count"},
}

// coreEventOrder is the core/v1 Event type's field order.
var coreEventOrder = []string{"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
	"count", "type", "eventTime", "series", "action", "related", "reportingComponent", "reportingInstance"}

// EventToEventsV1 converts a stored core/v1 Event (its full JSON) to
// events.k8s.io/v1. The reporting controller and instance, always
// encoded by the core type, are left out when empty, as the
// events.k8s.io type omits them.
func EventToEventsV1(obj []byte) ([]byte, error) {
	doc, err := parseEvent(obj)
	if err != nil {
		return nil, err
	}
	out := eventHeader(doc, eventsV1APIVersion)
	for _, f := range eventFieldsV1 {
		v := doc.Get(f.core)
		if v == nil {
			continue
		}
		if (f.events == "reportingController" || f.events == "reportingInstance") && v.Kind == jsonv.String && v.Str == "" {
			continue
		}
		out.Obj = append(out.Obj, jsonv.Member{Key: f.events, Value: *v})
	}
	return jsonv.Marshal(out), nil
}

// EventFromEventsV1 converts an events.k8s.io/v1 Event (its full JSON)
// to core/v1, the version Events are stored at.
func EventFromEventsV1(obj []byte) ([]byte, error) {
	doc, err := parseEvent(obj)
	if err != nil {
		return nil, err
	}
	byCore := make(map[string]*jsonv.Value, len(eventFieldsV1))
	for _, f := range eventFieldsV1 {
		if v := doc.Get(f.events); v != nil {
			byCore[f.core] = v
		}
	}
	out := eventHeader(doc, "v1")
	for _, key := range coreEventOrder {
		if v, ok := byCore[key]; ok {
			out.Obj = append(out.Obj, jsonv.Member{Key: key, Value: *v})
		}
	}
	return jsonv.Marshal(out), nil
}

// parseEvent parses an Event's JSON, which must be an object.
func parseEvent(obj []byte) (jsonv.Value, error) {
	parsed, err := jsonv.Parse(obj)
	if err != nil {
		return jsonv.Value{}, err
	}
	if parsed.Value.Kind != jsonv.Object {
		return jsonv.Value{}, fmt.Errorf("event: not an object: %v", parsed.Value.Kind)
	}
	return parsed.Value, nil
}

// eventHeader starts an Event at apiVersion with doc's metadata.
func eventHeader(doc jsonv.Value, apiVersion string) jsonv.Value {
	out := jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{
		{Key: "kind", Value: jsonv.NewString("Event")},
		{Key: "apiVersion", Value: jsonv.NewString(apiVersion)},
	}}
	if md := doc.Get("metadata"); md != nil {
		out.Obj = append(out.Obj, jsonv.Member{Key: "metadata", Value: *md})
	}
	return out
}
