package meta_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

func TestTimeMarshal(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		in   meta.Time
		want string
	}{
		{meta.Time{}, `null`},
		{meta.NewTime(time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)), `"2025-03-14T09:26:53Z"`},
		{meta.NewTime(time.Date(2025, 3, 14, 10, 26, 53, 999_999_999, paris)), `"2025-03-14T09:26:53Z"`},
		{meta.Time{Time: time.Date(2025, 3, 14, 10, 26, 53, 500_000_000, paris)}, `"2025-03-14T09:26:53Z"`},
		{meta.NewTime(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)), `"0001-01-01T00:00:01Z"`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(got), "Marshal(%v)", tt.in.Time)
	}
}

func TestTimeUnmarshal(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		{`null`, time.Time{}, ""},
		{`""`, time.Time{}, ""},
		{`"2025-03-14T09:26:53Z"`, time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC), ""},
		{`"2025-03-14T10:26:53+01:00"`, time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC), ""},
		{`"2025-03-14T09:26:53.123456Z"`, time.Date(2025, 3, 14, 9, 26, 53, 123456000, time.UTC), ""},
		{`12345`, time.Time{}, "is not a JSON string"},
		{`"yesterday"`, time.Time{}, "timestamp: parsing time"},
		{`"2025-03-14 09:26:53"`, time.Time{}, "timestamp: parsing time"},
		{`"2025-03-14T09:26:53Z`, time.Time{}, "is not a JSON string"},
		{`"`, time.Time{}, "is not a JSON string"},
		{`true`, time.Time{}, "is not a JSON string"},
	}
	for _, tt := range tests {
		var got meta.Time
		err := got.UnmarshalJSON([]byte(tt.in))
		if tt.wantErr != "" {
			assert.ErrorContains(t, err, tt.wantErr, "UnmarshalJSON(%s)", tt.in)
			continue
		}
		require.NoError(t, err, "UnmarshalJSON(%s)", tt.in)
		assert.True(t, tt.want.Equal(got.Time), "UnmarshalJSON(%s) = %v, want %v", tt.in, got.Time, tt.want)
	}

	// Through a struct, as in metadata, and back: null and absent both stay zero.
	var m meta.ObjectMeta
	require.NoError(t, json.Unmarshal([]byte(`{"creationTimestamp":null,"deletionTimestamp":"2025-03-14T09:26:53Z"}`), &m))
	assert.True(t, m.CreationTimestamp.IsZero())
	require.NotNil(t, m.DeletionTimestamp)
	out, err := json.Marshal(&m)
	require.NoError(t, err)
	assert.Equal(t, `{"deletionTimestamp":"2025-03-14T09:26:53Z"}`, string(out))
}
