package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/kubeproto"
)

const (
	coreEventsPath = "/api/v1/namespaces/default/events"
	eventsV1Path   = "/apis/events.k8s.io/v1/namespaces/default/events"
)

// A kubelet's event, written through core/v1.
const coreEventBody = `{"metadata":{"name":"started"},"involvedObject":{"kind":"Pod","name":"web","namespace":"default","uid":"u1"},` +
	`"reason":"Started","message":"Started container web","source":{"component":"kubelet","host":"node-1"},"count":3,"type":"Normal",` +
	`"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:01:00Z"}`

// A scheduler's event, written through events.k8s.io/v1.
const eventsV1Body = `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"scheduled"},` +
	`"regarding":{"kind":"Pod","name":"web","namespace":"default","uid":"u1"},"reason":"Scheduled","note":"Successfully assigned default/web to node-1",` +
	`"type":"Normal","eventTime":"2026-01-01T00:00:00.123456Z","reportingController":"default-scheduler","reportingInstance":"default-scheduler-host",` +
	`"action":"Binding","related":{"kind":"Node","name":"node-1"},"series":{"count":2,"lastObservedTime":"2026-01-01T00:02:00.000000Z"}}`

// fieldsOf drops kind, apiVersion and metadata from a decoded object.
func fieldsOf(obj map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		switch k {
		case "kind", "apiVersion", "metadata":
		default:
			out[k] = v
		}
	}
	return out
}

func TestEventsOneStorageBothAPIs(t *testing.T) {
	_, c := newTestServer(t, Options{})
	core := c.mustCreate(coreEventsPath, coreEventBody)
	// Read through events.k8s.io/v1: every core field under its name
	// there, the zero times encoded as the Go type encodes them.
	r := c.get(eventsV1Path + "/started")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	got := r.object(t)
	assert.Equal(t, "events.k8s.io/v1", got["apiVersion"])
	assert.Equal(t, map[string]any{
		"eventTime": nil, "reason": "Started", "note": "Started container web", "type": "Normal",
		"regarding":                map[string]any{"kind": "Pod", "name": "web", "namespace": "default", "uid": "u1"},
		"deprecatedSource":         map[string]any{"component": "kubelet", "host": "node-1"},
		"deprecatedFirstTimestamp": "2026-01-01T00:00:00Z", "deprecatedLastTimestamp": "2026-01-01T00:01:00Z", "deprecatedCount": float64(3),
	}, fieldsOf(got))
	assert.Equal(t, core["metadata"], got["metadata"], "one object: the same metadata through both APIs")

	// Written through events.k8s.io/v1, read through core/v1.
	ev := c.mustCreate(eventsV1Path, eventsV1Body)
	r = c.get(coreEventsPath + "/scheduled")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	got = r.object(t)
	assert.Equal(t, "v1", got["apiVersion"])
	assert.Equal(t, map[string]any{
		"involvedObject": map[string]any{"kind": "Pod", "name": "web", "namespace": "default", "uid": "u1"},
		"reason":         "Scheduled", "message": "Successfully assigned default/web to node-1", "type": "Normal",
		"eventTime": "2026-01-01T00:00:00.123456Z", "action": "Binding", "related": map[string]any{"kind": "Node", "name": "node-1"},
		"series":             map[string]any{"count": float64(2), "lastObservedTime": "2026-01-01T00:02:00.000000Z"},
		"reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-host",
		"source": map[string]any{}, "firstTimestamp": nil, "lastTimestamp": nil,
	}, fieldsOf(got))
	assert.Equal(t, ev["metadata"], got["metadata"])

	// One list, one resourceVersion sequence, through both APIs.
	coreList, evList := c.get(coreEventsPath).object(t), c.get(eventsV1Path).object(t)
	assert.Equal(t, coreList["metadata"].(map[string]any)["resourceVersion"], evList["metadata"].(map[string]any)["resourceVersion"])
	require.Len(t, evList["items"], 2)
	assert.Contains(t, evList["items"].([]any)[0], "note")
	assert.Contains(t, coreList["items"].([]any)[1], "message")

	// A delete through one API removes the object from both.
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, eventsV1Path+"/started", "").code)
	assert.Equal(t, http.StatusNotFound, c.get(coreEventsPath+"/started").code)
}

func TestEventsWatchAcrossAPIs(t *testing.T) {
	_, c := newTestServer(t, Options{})
	first := c.mustCreate(coreEventsPath, coreEventBody)
	rv := first["metadata"].(map[string]any)["resourceVersion"].(string)
	w := c.watch(eventsV1Path + "?watch=true&resourceVersion=" + rv)
	defer w.close()
	coreW := c.watch(coreEventsPath + "?watch=true&resourceVersion=" + rv)
	defer coreW.close()

	c.mustCreate(eventsV1Path, eventsV1Body)
	r := c.do(http.MethodPatch, coreEventsPath+"/started", `{"count":4}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, coreEventsPath+"/scheduled", "").code)

	type seen struct{ typ, name, field string }
	read := func(w *clientWatch, field string) []seen {
		var out []seen
		for range 3 {
			e := w.next()
			var obj map[string]any
			require.NoError(t, json.Unmarshal(e.Object, &obj))
			_, has := obj[field]
			f := ""
			if has {
				f = field
			}
			out = append(out, seen{e.Type, e.meta(t).Name, f})
		}
		return out
	}
	// Each watch sees every write, whichever API made it, in its own
	// API's shape.
	assert.Equal(t, []seen{{"ADDED", "scheduled", "note"}, {"MODIFIED", "started", "note"}, {"DELETED", "scheduled", "note"}}, read(w, "note"))
	assert.Equal(t, []seen{{"ADDED", "scheduled", "message"}, {"MODIFIED", "started", "message"}, {"DELETED", "scheduled", "message"}}, read(coreW, "message"))
}

func TestEventsFieldSelectors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(coreEventsPath, coreEventBody)
	c.mustCreate(eventsV1Path, eventsV1Body)
	names := func(path string) []string {
		t.Helper()
		r := c.get(path)
		require.Equal(t, http.StatusOK, r.code, "GET %s: %s", path, r.body)
		var out []string
		for _, it := range r.object(t)["items"].([]any) {
			out = append(out, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		return out
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{eventsV1Path + "?fieldSelector=regarding.name=web", []string{"scheduled", "started"}},
		{eventsV1Path + "?fieldSelector=reportingController=default-scheduler", []string{"scheduled"}},
		{eventsV1Path + "?fieldSelector=reason=Started,type=Normal", []string{"started"}},
		{eventsV1Path + "?fieldSelector=regarding.uid!=u1", nil},
		{coreEventsPath + "?fieldSelector=involvedObject.name=web", []string{"scheduled", "started"}},
		{coreEventsPath + "?fieldSelector=reportingComponent=default-scheduler", []string{"scheduled"}},
		// source is source.component, or the reporting controller.
		{coreEventsPath + "?fieldSelector=source=kubelet", []string{"started"}},
		{coreEventsPath + "?fieldSelector=source=default-scheduler", []string{"scheduled"}},
	} {
		assert.Equal(t, tc.want, names(tc.path), tc.path)
	}
	// Each API takes only its own field names.
	for path, field := range map[string]string{
		eventsV1Path + "?fieldSelector=involvedObject.name=web": "involvedObject.name",
		eventsV1Path + "?fieldSelector=source=kubelet":          "source",
		coreEventsPath + "?fieldSelector=regarding.name=web":    "regarding.name",
	} {
		r := c.get(path)
		assert.Equal(t, http.StatusBadRequest, r.code, path)
		assert.Equal(t, "field label not supported: "+field, r.status(t).Message, path)
	}
}

func TestEventsV1Validation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	body := func(name, fields string) string {
		return `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"` + name + `"},` + fields + `}`
	}
	const ok = `"regarding":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","type":"Normal","eventTime":"2026-01-01T00:00:00.000000Z",` +
		`"reportingController":"c","reportingInstance":"i","action":"A"`
	for _, tc := range []struct {
		name, fields, want string
	}{
		{"empty", `"regarding":{"kind":"Pod","name":"p"}`, `[eventTime: Required value, type: Invalid value: "": has invalid value: ]`},
		{"no-reporter", `"regarding":{"kind":"Pod","name":"p","namespace":"default"},"type":"Warning","eventTime":"2026-01-01T00:00:00.000000Z"`,
			`[reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, ` +
				`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
				`(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), ` +
				`reportingInstance: Required value, action: Required value, reason: Required value]`},
		{"long-note", ok + `,"note":"` + strings.Repeat("n", 1025) + `"`, `message: Invalid value: "": can have at most 1024 characters`},
		{"long-action", strings.Replace(ok, `"action":"A"`, `"action":"`+strings.Repeat("a", 129)+`"`, 1), `action: Invalid value: "": can have at most 128 characters`},
		{"deprecated", ok + `,"deprecatedCount":2,"deprecatedSource":{"component":"x"},"deprecatedFirstTimestamp":"2026-01-01T00:00:00Z"`,
			`[firstTimestamp: Invalid value: "": needs to be unset, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]`},
		{"series", ok + `,"series":{"count":1}`, `[series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]`},
		{"bad-type", strings.Replace(ok, "Normal", "Info", 1), `type: Invalid value: "": has invalid value: Info`},
		{"Bad_Name", ok, `metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
			`and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"cluster-object", strings.Replace(ok, `"kind":"Pod","name":"p","namespace":"default"`, `"kind":"Node","name":"n"`, 1), ""},
	} {
		r := c.post(eventsV1Path, body(tc.name, tc.fields))
		if tc.want == "" {
			assert.Equal(t, http.StatusCreated, r.code, "%s: %s", tc.name, r.body)
			continue
		}
		require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s: %s", tc.name, r.body)
		assert.Equal(t, `Event.events.k8s.io "`+tc.name+`" is invalid: `+tc.want, r.status(t).Message, tc.name)
	}

	// core/v1 keeps its lenient rules: an old-style event needs only its
	// namespace to agree, and names need only fit in a path segment.
	c.mustCreate(coreEventsPath, `{"metadata":{"name":"Old_Style"},"involvedObject":{"kind":"Pod","name":"p"},"type":"Info"}`)
	r := c.post("/api/v1/namespaces/kube-system/events", `{"metadata":{"name":"n"},"involvedObject":{"kind":"Node","name":"n"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Event "n" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace`, r.status(t).Message)
	r = c.post(coreEventsPath, `{"metadata":{"name":"new"},"involvedObject":{"kind":"Pod","name":"p"},"eventTime":"2026-01-01T00:00:00.000000Z","action":"A","reason":"R","reportingInstance":"i"}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Contains(t, r.status(t).Message, `reportingComponent: Required value`, "core/v1 names the field reportingComponent")
}

func TestEventsV1UpdateImmutable(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(eventsV1Path, eventsV1Body)
	merge := func(path, patch string) response {
		return c.do(http.MethodPatch, path, patch, "Content-Type", "application/merge-patch+json")
	}
	r := merge(eventsV1Path+"/scheduled", `{"note":"other","regarding":{"name":"db"},"deprecatedCount":5}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `Event.events.k8s.io "scheduled" is invalid: [`+
		`involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"db", UID:"u1", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable, `+
		`message: Invalid value: "other": field is immutable, count: Invalid value: 5: field is immutable]`, r.status(t).Message)
	// The series may change, and is checked when it does.
	r = merge(eventsV1Path+"/scheduled", `{"series":{"count":3,"lastObservedTime":"2026-01-01T00:03:00.000000Z"}}`)
	assert.Equal(t, http.StatusOK, r.code, "%s", r.body)
	r = merge(eventsV1Path+"/scheduled", `{"series":{"count":1}}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	// Through core/v1 the same object may change as before.
	r = merge(coreEventsPath+"/scheduled", `{"message":"other","count":5}`)
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "other", c.get(eventsV1Path + "/scheduled").object(t)["note"])
}

func TestEventsManagedFieldsPerAPI(t *testing.T) {
	_, c := newTestServer(t, Options{})
	apply := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"a"},"regarding":{"kind":"Pod","name":"p","namespace":"default"},` +
		`"reason":"R","note":"first","type":"Normal","eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"c","reportingInstance":"i","action":"A"}`
	r := c.do(http.MethodPatch, eventsV1Path+"/a?fieldManager=ap", apply, "Content-Type", "application/apply-patch+yaml")
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	r = c.do(http.MethodPatch, coreEventsPath+"/a?fieldManager=upd", `{"message":"second"}`, "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	var obj struct {
		Metadata struct {
			ManagedFields []struct {
				Manager, APIVersion string
				FieldsV1            map[string]any
			}
		}
	}
	require.NoError(t, json.Unmarshal(c.get(eventsV1Path+"/a").body, &obj))
	entries := obj.Metadata.ManagedFields
	require.Len(t, entries, 2)
	// Each entry is recorded at the version its manager wrote, in that
	// version's field names; the core update took the note over.
	assert.Equal(t, "ap", entries[0].Manager)
	assert.Equal(t, "events.k8s.io/v1", entries[0].APIVersion)
	assert.NotContains(t, entries[0].FieldsV1, "f:note")
	assert.Contains(t, entries[0].FieldsV1, "f:reportingController")
	assert.Equal(t, "upd", entries[1].Manager)
	assert.Equal(t, "v1", entries[1].APIVersion)
	assert.Equal(t, map[string]any{"f:message": map[string]any{}}, entries[1].FieldsV1)

	// Applying the first note again conflicts with the core manager,
	// whose field is named as it recorded it.
	r = c.do(http.MethodPatch, eventsV1Path+"/a?fieldManager=ap", apply, "Content-Type", "application/apply-patch+yaml")
	require.Equal(t, http.StatusConflict, r.code, "%s", r.body)
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "upd" using v1: .message`, r.status(t).Message)
}

func TestEventsProtobuf(t *testing.T) {
	_, c := newTestServer(t, Options{})
	// A protobuf create through events.k8s.io/v1, read back in protobuf
	// through both APIs.
	pb, err := kubeproto.Encode([]byte(eventsV1Body))
	require.NoError(t, err)
	r := c.do(http.MethodPost, eventsV1Path, string(pb), "Content-Type", mediaProtobuf, "Accept", mediaProtobuf)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	for path, want := range map[string]string{eventsV1Path + "/scheduled": "note", coreEventsPath + "/scheduled": "message"} {
		r = c.get(path, "Accept", mediaProtobuf)
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		js, err := kubeproto.Decode(r.body)
		require.NoError(t, err)
		var obj map[string]any
		require.NoError(t, json.Unmarshal(js, &obj))
		assert.Equal(t, "Successfully assigned default/web to node-1", obj[want], path)
	}
	r = c.get(eventsV1Path, "Accept", mediaProtobuf)
	require.Equal(t, http.StatusOK, r.code)
	js, err := kubeproto.Decode(r.body)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"reportingController":"default-scheduler"`)
}
