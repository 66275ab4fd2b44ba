package builtin

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Events are validated in their stored, core/v1 shape, with rules that
// depend on the API a write came through, as on the real server: every
// write passes the lenient rules core/v1 clients have always had; a
// write through events.k8s.io/v1 also passes the strict ones (an event
// time, Normal or Warning, no deprecated fields on create, and most
// fields immutable). Errors name the core fields (message, source,
// involvedObject), whichever API was used, as the real server's do.

// The length limits of an Event's strings.
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// validateEvent checks a core/v1 Event written through core/v1.
func validateEvent(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	v.eventLegacy(m, obj, "reportingComponent")
}

// strictEvent reports whether k is an Event written through an API
// whose strict rules apply (events.k8s.io/v1).
func strictEvent(k Kind) bool {
	return k.Group == "" && k.Kind == "Event" && k.Request == eventsV1APIVersion
}

// validateEventsV1Create checks an Event (core shape) created through
// events.k8s.io/v1.
func validateEventsV1Create(m *meta.ObjectMeta, obj *jsonv.Value) []FieldError {
	v := &validator{}
	v.eventLegacy(m, obj, "reportingController")
	for _, p := range validation.SubdomainProblems(m.Name) {
		v.invalid("metadata.name", m.Name, p)
	}
	v.eventSeries(obj)
	if zeroTime(obj, "eventTime") {
		v.required("eventTime", "")
	}
	if t := str(obj, "type"); t != "Normal" && t != "Warning" {
		v.invalid("type", "", "has invalid value: "+t)
	}
	for _, key := range []string{"firstTimestamp", "lastTimestamp"} {
		if !zeroTime(obj, key) {
			v.invalid(key, "", "needs to be unset")
		}
	}
	if intField(obj, "count") != 0 {
		v.invalid("count", "", "needs to be unset")
	}
	if src := sub(obj, "source"); str(src, "component") != "" || str(src, "host") != "" {
		v.invalid("source", "", "needs to be unset")
	}
	return v.errs
}

// validateEventsV1Update checks an update through events.k8s.io/v1 of
// an Event (core shape) to obj from old: the lenient rules, the series
// when it changes, and the fields that may not change.
func validateEventsV1Update(m *meta.ObjectMeta, obj, old *jsonv.Value) []FieldError {
	v := &validator{}
	v.eventLegacy(m, obj, "reportingController")
	if !same(obj, old, "series") {
		v.eventSeries(obj)
	}
	immutable := func(field, shown string, equal bool) {
		if !equal {
			v.invalidRaw(field, shown, "field is immutable")
		}
	}
	ref := func(key string) (string, bool) {
		return shownObjectReference(sub(obj, key)), jsonv.Equal(objectReference(sub(obj, key)), objectReference(sub(old, key)))
	}
	strField := func(key string) {
		immutable(key, strconv.Quote(str(obj, key)), str(obj, key) == str(old, key))
	}
	shown, eq := ref("involvedObject")
	immutable("involvedObject", shown, eq)
	strField("reason")
	strField("message")
	src, oldSrc := sub(obj, "source"), sub(old, "source")
	immutable("source", fmt.Sprintf("core.EventSource{Component:%q, Host:%q}", str(src, "component"), str(src, "host")),
		str(src, "component") == str(oldSrc, "component") && str(src, "host") == str(oldSrc, "host"))
	for _, key := range []string{"firstTimestamp", "lastTimestamp"} {
		t, oldT := eventTime(obj, key), eventTime(old, key)
		immutable(key, t.String(), t.Equal(oldT))
	}
	n, oldN := intField(obj, "count"), intField(old, "count")
	immutable("count", strconv.FormatInt(n, 10), n == oldN)
	strField("reason") // the real validator checks it twice
	strField("type")
	// Sub-microsecond changes are tolerated: clients that truncate
	// to the encoding's precision send back what they read.
	if t, oldT := eventTime(obj, "eventTime"), eventTime(old, "eventTime"); !t.Truncate(time.Microsecond).Equal(oldT.Truncate(time.Microsecond)) {
		immutable("eventTime", t.String(), false)
	}
	strField("action")
	related, oldRelated := present(obj, "related"), present(old, "related")
	switch {
	case related == nil && oldRelated == nil:
	case related == nil:
		immutable("related", "null", false)
	default:
		immutable("related", shownObjectReference(related), oldRelated != nil && jsonv.Equal(objectReference(related), objectReference(oldRelated)))
	}
	immutable("reportingController", strconv.Quote(str(obj, "reportingComponent")), str(obj, "reportingComponent") == str(old, "reportingComponent"))
	strField("reportingInstance")
	return v.errs
}

// eventLegacy applies the rules every Event write passes. An event
// without an event time (the old kind) must be in its object's
// namespace, or in default for a cluster-scoped object; one with an
// event time needs its reporting controller and instance, action and
// reason, within their limits. rcField names the reporting controller
// as the API written through calls it.
func (v *validator) eventLegacy(m *meta.ObjectMeta, obj *jsonv.Value, rcField string) {
	involvedNS := str(sub(obj, "involvedObject"), "namespace")
	if zeroTime(obj, "eventTime") {
		if (involvedNS == "" && m.Namespace != "" && m.Namespace != "default") || (involvedNS != "" && m.Namespace != involvedNS) {
			v.invalid("involvedObject.namespace", involvedNS, "does not match event.namespace")
		}
		return
	}
	if involvedNS == "" && m.Namespace != "default" && m.Namespace != "kube-system" {
		v.invalid("involvedObject.namespace", involvedNS, "does not match event.namespace")
	}
	controller := str(obj, "reportingComponent")
	if controller == "" {
		v.required(rcField, "")
	}
	v.problems(rcField, controller, validation.QualifiedNameProblems(controller))
	v.eventString(obj, "reportingInstance", "reportingInstance", eventReportingInstanceLimit)
	v.eventString(obj, "action", "action", eventActionLimit)
	v.eventString(obj, "reason", "reason", eventReasonLimit)
	if len(str(obj, "message")) > eventNoteLimit {
		v.invalid("message", "", fmt.Sprintf("can have at most %d characters", eventNoteLimit))
	}
}

// eventString reports a string member that is empty or longer than
// limit.
func (v *validator) eventString(obj *jsonv.Value, key, field string, limit int) {
	s := str(obj, key)
	if s == "" {
		v.required(field, "")
	}
	if len(s) > limit {
		v.invalid(field, "", fmt.Sprintf("can have at most %d characters", limit))
	}
}

// eventSeries checks an Event's series, when it has one.
func (v *validator) eventSeries(obj *jsonv.Value) {
	series := present(obj, "series")
	if series == nil {
		return
	}
	if intField(series, "count") < 2 {
		v.invalid("series.count", "", "should be at least 2")
	}
	if zeroTime(series, "lastObservedTime") {
		v.required("series.lastObservedTime", "")
	}
}

// eventTime reads a timestamp member; absent, null or unreadable is the
// zero time.
func eventTime(obj *jsonv.Value, key string) time.Time {
	s := str(obj, key)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// zeroTime reports a timestamp member that holds no time.
func zeroTime(obj *jsonv.Value, key string) bool { return eventTime(obj, key).IsZero() }

// objectReferenceFields are an ObjectReference's members in its Go
// type's order.
var objectReferenceFields = []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"}

// objectReference is ref with every field, absent ones empty, for
// comparing two references as the Go type compares them.
func objectReference(ref *jsonv.Value) jsonv.Value {
	out := jsonv.Value{Kind: jsonv.Object}
	for _, k := range objectReferenceFields {
		out.Obj = append(out.Obj, jsonv.Member{Key: k, Value: jsonv.NewString(str(ref, k))})
	}
	return out
}

// shownObjectReference is a reference as the real server shows one in
// a message: its internal Go value.
func shownObjectReference(ref *jsonv.Value) string {
	return fmt.Sprintf("core.ObjectReference{Kind:%q, Namespace:%q, Name:%q, UID:%q, APIVersion:%q, ResourceVersion:%q, FieldPath:%q}",
		str(ref, "kind"), str(ref, "namespace"), str(ref, "name"), str(ref, "uid"), str(ref, "apiVersion"), str(ref, "resourceVersion"), str(ref, "fieldPath"))
}
