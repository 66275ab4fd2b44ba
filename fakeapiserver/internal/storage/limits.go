package storage

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/meta"
)

// MaxObjectBytes is the largest object the store keeps, as JSON: 3 MiB.
// A real server's every write must fit in etcd's 1.5 MiB request limit
// (--max-request-bytes) as protobuf; the store holds JSON, which is
// larger, so it allows twice that, the factor the real server allows
// between a JSON body and what it stores (its 3 MiB body limit). A larger
// object is refused with etcd's answer (ErrTooLarge), whatever made it
// that large: patches that each added a little, or the managed fields
// of a huge object.
const MaxObjectBytes = 3 << 20

// DefaultHistoryBytes bounds the bytes of the objects the history keeps
// for watches to resume from: 256 MiB, an eighth of etcd's default 2 GiB
// backend quota. Past it the oldest changes are compacted away, as etcd
// compacts: a watch from before them gets 410 and its client relists.
const DefaultHistoryBytes = 256 << 20

// ErrTooLarge is the real server's answer to a write of an object larger
// than MaxObjectBytes: etcd's error, passed through as a 500.
func ErrTooLarge() *meta.Status {
	return apistatus.New(500, "", "etcdserver: request is too large")
}

// SetHistoryBytes bounds the history in bytes (negative: no bound). It is
// meant to be called before the store is used; New sets
// DefaultHistoryBytes.
func (s *Store) SetHistoryBytes(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.historyBytes = n
	s.trimLocked()
}

// HistoryBytes returns the bytes of the objects the history holds.
func (s *Store) HistoryBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logBytes
}

// changeBytes is what one change costs the history: its new object.
func changeBytes(c *Change) int64 {
	if c.Obj == nil {
		return 0
	}
	return int64(len(c.Obj.Body))
}

// trimBytesLocked compacts the oldest changes until the history's bytes
// are within the bound, always keeping the newest change.
func (s *Store) trimBytesLocked() {
	if s.historyBytes < 0 || s.logBytes <= s.historyBytes || len(s.log) < 2 {
		return
	}
	excess := s.logBytes - s.historyBytes
	i := 0
	for ; i < len(s.log)-1 && excess > 0; i++ {
		excess -= changeBytes(s.log[i])
	}
	s.compactLocked(s.log[i-1].RV)
}
