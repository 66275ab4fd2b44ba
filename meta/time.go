package meta

import (
	"bytes"
	"fmt"
	"time"
)

// Time is a timestamp as the API server writes it: RFC 3339 in UTC with
// second precision. The zero Time encodes as JSON null, and null decodes as
// the zero Time, as real servers send it in bookmarks.
type Time struct {
	time.Time
}

// NewTime returns t truncated to the second, the precision the server keeps.
func NewTime(t time.Time) Time {
	return Time{t.UTC().Truncate(time.Second)}
}

// MarshalJSON encodes t as an RFC 3339 string, or null when t is zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts null, an empty string or an RFC 3339 timestamp.
func (t *Time) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) || bytes.Equal(data, []byte(`""`)) {
		t.Time = time.Time{}
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("timestamp %s is not a JSON string", truncate(data, 40))
	}
	parsed, err := time.Parse(time.RFC3339, string(data[1:len(data)-1]))
	if err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	t.Time = parsed
	return nil
}

// truncate shortens b for an error message.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}
