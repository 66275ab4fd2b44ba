package api

import "github.com/kubecache/kubecache/meta"

// Event is a core/v1 Event: what kubectl describe and kubectl get events
// show.
type Event struct {
	meta.TypeMeta      `json:",inline"`
	meta.ObjectMeta    `json:"metadata"`
	InvolvedObject     ObjectReference `json:"involvedObject"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
	Source             EventSource     `json:"source,omitzero"`
	FirstTimestamp     meta.Time       `json:"firstTimestamp,omitzero"`
	LastTimestamp      meta.Time       `json:"lastTimestamp,omitzero"`
	Count              int32           `json:"count,omitempty"`
	Type               string          `json:"type,omitempty"`
	ReportingComponent string          `json:"reportingComponent"`
	ReportingInstance  string          `json:"reportingInstance"`
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
