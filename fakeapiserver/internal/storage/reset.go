package storage

// ResetWatches ends every watch of table, each response ended cleanly
// after what it has queued, and from now on refuses a watch of table from
// a resourceVersion older than rv as compacted. The real server does so
// when it rebuilds a custom resource's storage after its CRD's spec
// changed: the open watches end, and the new watch cache starts at the
// revision it first lists.
func (s *Store) ResetWatches(table string, rv int64) {
	s.mu.Lock()
	s.watchFloor[table] = max(s.watchFloor[table], rv)
	ws := s.watchers[table]
	delete(s.watchers, table)
	s.watchersChangedLocked()
	s.mu.Unlock()
	for w := range ws {
		w.Stop(StopStorageReset)
	}
}

// OldestWatchRV returns the oldest resourceVersion a watch of table may
// start from: the compaction point, or where its storage was last reset
// if that is later.
func (s *Store) OldestWatchRV(table string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.compacted, s.watchFloor[table])
}
