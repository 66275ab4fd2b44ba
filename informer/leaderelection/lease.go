package leaderelection

import (
	"bytes"
	"fmt"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// Lease is a coordination.k8s.io/v1 Lease: the object the candidates
// compete for. Whoever holds it (Spec.HolderIdentity) and keeps renewing
// it (Spec.RenewTime) within Spec.LeaseDurationSeconds is the leader.
type Lease struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            LeaseSpec `json:"spec"`
}

// LeaseSpec is the part of a Lease leader election reads and writes.
type LeaseSpec struct {
	// HolderIdentity is the leader's identity; "" means nobody holds it.
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds is how long the others wait for a renewal
	// before they may take the lease.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the current holder took the lease, RenewTime
	// when it last renewed it.
	AcquireTime *MicroTime `json:"acquireTime,omitempty"`
	RenewTime   *MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts the changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
}

// holder returns the holder's identity, "" for none.
func (s LeaseSpec) holder() string {
	if s.HolderIdentity == nil {
		return ""
	}
	return *s.HolderIdentity
}

// duration returns the lease duration, or def when unset.
func (s LeaseSpec) duration(def time.Duration) time.Duration {
	if s.LeaseDurationSeconds == nil {
		return def
	}
	return time.Duration(*s.LeaseDurationSeconds) * time.Second
}

// transitions returns LeaseTransitions, 0 when unset.
func (s LeaseSpec) transitions() int32 {
	if s.LeaseTransitions == nil {
		return 0
	}
	return *s.LeaseTransitions
}

// MicroTime is a timestamp with microseconds, as Leases carry them:
// "2026-01-02T15:04:05.000000Z".
type MicroTime struct {
	time.Time
}

// microLayout is the API server's MicroTime format.
const microLayout = "2006-01-02T15:04:05.000000Z07:00"

// NewMicroTime returns t in UTC, truncated to the microsecond.
func NewMicroTime(t time.Time) *MicroTime {
	return &MicroTime{t.UTC().Truncate(time.Microsecond)}
}

// MarshalJSON encodes t in the server's format, or null when zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := append([]byte{'"'}, t.UTC().Format(microLayout)...)
	return append(b, '"'), nil
}

// UnmarshalJSON accepts null, "" or an RFC 3339 timestamp with or without
// fractional seconds.
func (t *MicroTime) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) || bytes.Equal(data, []byte(`""`)) {
		t.Time = time.Time{}
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("lease timestamp %.40q is not a JSON string", data)
	}
	parsed, err := time.Parse(time.RFC3339Nano, string(data[1:len(data)-1]))
	if err != nil {
		return fmt.Errorf("lease timestamp: %w", err)
	}
	t.Time = parsed
	return nil
}

// metaLease is the TypeMeta of a coordination.k8s.io/v1 Lease.
var metaLease = meta.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}
