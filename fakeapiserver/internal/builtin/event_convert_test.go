package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// TestEventConversionRoundTrip converts an events.k8s.io/v1 Event with
// every field to core/v1 and back: each field lands under its core name
// and comes back unchanged.
func TestEventConversionRoundTrip(t *testing.T) {
	in := `{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"e","namespace":"ns"},` +
		`"eventTime":"2026-01-01T00:00:00.000001Z","series":{"count":2,"lastObservedTime":"2026-01-01T00:00:01.000000Z"},` +
		`"reportingController":"c","reportingInstance":"i","action":"A","reason":"R","regarding":{"kind":"Pod","name":"p"},` +
		`"related":{"kind":"Node","name":"n"},"note":"N","type":"Normal","deprecatedSource":{"component":"k","host":"h"},` +
		`"deprecatedFirstTimestamp":"2026-01-01T00:00:00Z","deprecatedLastTimestamp":"2026-01-01T00:00:02Z","deprecatedCount":3}`
	core, err := EventFromEventsV1([]byte(in))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Event","apiVersion":"v1","metadata":{"name":"e","namespace":"ns"},`+
		`"involvedObject":{"kind":"Pod","name":"p"},"reason":"R","message":"N","source":{"component":"k","host":"h"},`+
		`"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:02Z","count":3,"type":"Normal",`+
		`"eventTime":"2026-01-01T00:00:00.000001Z","series":{"count":2,"lastObservedTime":"2026-01-01T00:00:01.000000Z"},`+
		`"action":"A","related":{"kind":"Node","name":"n"},"reportingComponent":"c","reportingInstance":"i"}`, string(core))
	back, err := EventToEventsV1(core)
	require.NoError(t, err)
	assert.Equal(t, in, string(back), "the round trip keeps every field, in the events.k8s.io type's order")

	// The core type always encodes the reporter; events.k8s.io omits it
	// when empty.
	out, err := EventToEventsV1([]byte(`{"metadata":{},"reportingComponent":"","reportingInstance":"","involvedObject":{}}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{},"regarding":{}}`, string(out))

	_, err = EventToEventsV1([]byte(`[]`))
	assert.Error(t, err)
}

// FuzzEventConversion feeds arbitrary documents to the Event conversion
// both ways: it never panics, and an object converted to core/v1 and
// back holds the members it had under events.k8s.io names.
func FuzzEventConversion(f *testing.F) {
	f.Add(`{"metadata":{"name":"a"},"note":"x","regarding":{"name":"p"},"deprecatedCount":2}`)
	f.Add(`{"metadata":null,"reportingController":"","series":{"count":"x"},"unknown":1}`)
	f.Add(`{"involvedObject":{},"message":"m","reportingComponent":"c","source":{"host":"h"}}`)
	f.Fuzz(func(t *testing.T, obj string) {
		if _, err := EventToEventsV1([]byte(obj)); err != nil {
			return
		}
		core, err := EventFromEventsV1([]byte(obj))
		require.NoError(t, err)
		back, err := EventToEventsV1(core)
		require.NoError(t, err)
		in, err := jsonv.Parse([]byte(obj))
		require.NoError(t, err)
		out, err := jsonv.Parse(back)
		require.NoError(t, err)
		for _, f := range eventFieldsV1 {
			v := in.Value.Get(f.events)
			if v == nil || (v.Kind == jsonv.String && v.Str == "" && (f.events == "reportingController" || f.events == "reportingInstance")) {
				continue
			}
			got := out.Value.Get(f.events)
			require.NotNil(t, got, "%s lost in %s", f.events, obj)
			require.True(t, jsonv.Equal(*v, *got), "%s changed in %s", f.events, obj)
		}
	})
}
