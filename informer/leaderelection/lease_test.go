package leaderelection_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/informer/leaderelection"
)

func TestLeaseWireForm(t *testing.T) {
	raw := `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"m","namespace":"default","resourceVersion":"7"},` +
		`"spec":{"holderIdentity":"pod-a","leaseDurationSeconds":15,"acquireTime":"2026-01-02T03:04:05.123456Z","renewTime":"2026-01-02T03:04:07.000001Z","leaseTransitions":2}}`
	var l leaderelection.Lease
	require.NoError(t, json.Unmarshal([]byte(raw), &l))
	assert.Equal(t, "pod-a", *l.Spec.HolderIdentity)
	assert.Equal(t, int32(15), *l.Spec.LeaseDurationSeconds)
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC), l.Spec.AcquireTime.Time)
	out, err := json.Marshal(l.Spec)
	require.NoError(t, err)
	assert.JSONEq(t, `{"holderIdentity":"pod-a","leaseDurationSeconds":15,"acquireTime":"2026-01-02T03:04:05.123456Z","renewTime":"2026-01-02T03:04:07.000001Z","leaseTransitions":2}`, string(out))

	for _, bad := range []string{`12`, `"yesterday"`, `"2026-01-02"`, `{`} {
		var m leaderelection.MicroTime
		assert.Error(t, json.Unmarshal([]byte(bad), &m), bad)
	}
	for _, empty := range []string{`null`, `""`} {
		m := leaderelection.MicroTime{Time: time.Now()}
		require.NoError(t, json.Unmarshal([]byte(empty), &m))
		assert.True(t, m.IsZero(), empty)
	}
	zero, err := json.Marshal(leaderelection.MicroTime{})
	require.NoError(t, err)
	assert.Equal(t, "null", string(zero))
}

// FuzzMicroTime decodes arbitrary bytes as a Lease timestamp, the one
// field of a Lease this package parses itself: never a panic, and what
// decodes re-encodes into a value that decodes to the same microsecond.
func FuzzMicroTime(f *testing.F) {
	for _, s := range []string{`"2026-01-02T03:04:05.123456Z"`, `"2026-01-02T03:04:05Z"`, `"2026-01-02T03:04:05.1+02:00"`, `null`, `""`, `"x"`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m leaderelection.MicroTime
		if err := m.UnmarshalJSON(data); err != nil {
			return
		}
		if y := m.UTC().Year(); y < 0 || y > 9999 {
			return // outside what RFC 3339 can write
		}
		out, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON(%v): %v", m, err)
		}
		var back leaderelection.MicroTime
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("%s decoded, but its encoding %s does not: %v", data, out, err)
		}
		if !back.Equal(m.Truncate(time.Microsecond)) {
			t.Fatalf("%s: round trip gave %v, want %v", data, back, m.Truncate(time.Microsecond))
		}
	})
}
