package api

import (
	"encoding/json"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// Event is a core/v1 Event: what kubectl describe and kubectl get events
// show. An event written through events.k8s.io/v1 (EventV1) reads here
// with its note as Message, its reporting controller as
// ReportingComponent and its series, event time and action as they are.
type Event struct {
	meta.TypeMeta      `json:",inline"`
	meta.ObjectMeta    `json:"metadata"`
	InvolvedObject     ObjectReference  `json:"involvedObject"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
	Source             EventSource      `json:"source,omitzero"`
	FirstTimestamp     meta.Time        `json:"firstTimestamp,omitzero"`
	LastTimestamp      meta.Time        `json:"lastTimestamp,omitzero"`
	Count              int32            `json:"count,omitempty"`
	Type               string           `json:"type,omitempty"`
	EventTime          MicroTime        `json:"eventTime,omitzero"`
	Series             *EventSeries     `json:"series,omitempty"`
	Action             string           `json:"action,omitempty"`
	Related            *ObjectReference `json:"related,omitempty"`
	ReportingComponent string           `json:"reportingComponent"`
	ReportingInstance  string           `json:"reportingInstance"`
}

// EventV1 is an events.k8s.io/v1 Event, as kube-scheduler writes them:
// the same object as a core/v1 Event, under the newer API's names.
type EventV1 struct {
	meta.TypeMeta       `json:",inline"`
	meta.ObjectMeta     `json:"metadata"`
	EventTime           MicroTime        `json:"eventTime"`
	Series              *EventSeries     `json:"series,omitempty"`
	ReportingController string           `json:"reportingController,omitempty"`
	ReportingInstance   string           `json:"reportingInstance,omitempty"`
	Action              string           `json:"action,omitempty"`
	Reason              string           `json:"reason,omitempty"`
	Regarding           ObjectReference  `json:"regarding"`
	Related             *ObjectReference `json:"related,omitempty"`
	Note                string           `json:"note,omitempty"`
	Type                string           `json:"type,omitempty"`
}

// EventSeries counts the repeats of an event after the first.
type EventSeries struct {
	Count            int32     `json:"count"`
	LastObservedTime MicroTime `json:"lastObservedTime"`
}

// The event types.
const (
	EventNormal  = "Normal"
	EventWarning = "Warning"
)

// ObjectReference names the object an event is about.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// EventSource names the component that recorded an event.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// RefTo returns the reference to an object of kind in apiVersion.
func RefTo(m *meta.ObjectMeta, apiVersion, kind string) ObjectReference {
	return ObjectReference{Kind: kind, Namespace: m.Namespace, Name: m.Name, UID: m.UID, APIVersion: apiVersion, ResourceVersion: m.ResourceVersion}
}

// microTimeLayout is how the API encodes a MicroTime: RFC 3339 in UTC
// with exactly six fractional digits.
const microTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is a timestamp kept to the microsecond (an event's time),
// encoded as the API encodes one; the zero time encodes as null.
type MicroTime struct {
	time.Time
}

// NewMicroTime returns t truncated to the microsecond, in UTC.
func NewMicroTime(t time.Time) MicroTime {
	return MicroTime{t.UTC().Truncate(time.Microsecond)}
}

// MarshalJSON encodes t as the API does.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(microTimeLayout))
}

// UnmarshalJSON reads an RFC 3339 time or null.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = parsed.UTC()
	return nil
}
