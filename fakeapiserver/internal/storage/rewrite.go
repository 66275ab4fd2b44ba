package storage

import (
	"slices"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
)

// WithRest returns a copy of o whose top-level members (all but kind,
// apiVersion and metadata) are rest; its metadata, resourceVersion and
// selectable fields are o's, its cached encodings its own.
func (o *Object) WithRest(rest []jsonv.Member) *Object {
	body := slices.Clip(o.Body[:o.MetaEnd])
	body = append(body, EncodeRest(rest)...)
	return o.withBody(o.Meta, append(body, '}'), o.MetaEnd, o.RV)
}

// Rewrite replaces the objects of table, now and at every retained
// resourceVersion, by what fn returns for them, without a new
// resourceVersion and without watch events: the objects read
// differently from now on, at whatever resourceVersion a list reads
// them, as when the real server decodes them from etcd with a changed
// schema. fn runs once per object version, outside the store's lock; an
// object changed meanwhile by a commit keeps the committed version. It
// returns how many current objects were replaced.
//
// Each retained version is walked, so the cost is the number of
// versions times the number of objects: fine for the rare schema change
// it serves.
func (s *Store) Rewrite(table string, fn func(*Object) *Object) int {
	s.mu.Lock()
	t := s.tableLocked(table)
	maps := make([]pmap.Map[*Object], len(t.versions))
	for i, v := range t.versions {
		maps[i] = v.m
	}
	s.mu.Unlock()
	replaced := map[*Object]*Object{}
	seen := map[*Object]bool{}
	for _, m := range maps {
		m.Ascend("", func(_ string, o *Object) bool {
			if !seen[o] {
				seen[o] = true
				if n := fn(o); n != nil && n != o {
					replaced[o] = n
				}
			}
			return true
		})
	}
	if len(replaced) == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t = s.tableLocked(table)
	n := 0
	t.cur, n = swapObjects(t.cur, replaced)
	for i := range t.versions[:len(t.versions)-1] {
		t.versions[i].m, _ = swapObjects(t.versions[i].m, replaced)
	}
	t.versions[len(t.versions)-1].m = t.cur
	return n
}

// swapObjects returns m with every object that replaced names swapped for
// its replacement, and how many were.
func swapObjects(m pmap.Map[*Object], replaced map[*Object]*Object) (pmap.Map[*Object], int) {
	n := 0
	for old, repl := range replaced {
		if cur, ok := m.Get(old.Key); ok && cur == old {
			m = m.Set(old.Key, repl)
			n++
		}
	}
	return m, n
}
