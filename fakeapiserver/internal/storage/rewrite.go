package storage

import (
	"slices"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// WithRest returns a copy of o whose top-level members (all but kind,
// apiVersion and metadata) are rest; its metadata, resourceVersion and
// selectable fields are o's, its cached encodings its own.
func (o *Object) WithRest(rest []jsonv.Member) *Object {
	body := slices.Clip(o.Body[:o.MetaEnd])
	body = append(body, EncodeRest(rest)...)
	return o.withBody(o.Meta, append(body, '}'), o.MetaEnd, o.RV)
}

// Rewrite replaces the current objects of table by what fn returns for
// them, without a new resourceVersion and without watch events: the
// objects read differently from now on, as when the real server decodes
// them with a changed schema. fn runs outside the store's lock; an
// object changed meanwhile by a commit keeps the committed version. It
// returns how many objects were replaced.
func (s *Store) Rewrite(table string, fn func(*Object) *Object) int {
	snap, _ := s.Current(table)
	type swap struct{ old, new *Object }
	var swaps []swap
	snap.Ascend("", func(_ string, o *Object) bool {
		if n := fn(o); n != nil && n != o {
			swaps = append(swaps, swap{o, n})
		}
		return true
	})
	if len(swaps) == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tableLocked(table)
	n := 0
	for _, sw := range swaps {
		if cur, ok := t.cur.Get(sw.old.Key); ok && cur == sw.old {
			t.cur = t.cur.Set(sw.old.Key, sw.new)
			n++
		}
	}
	t.versions[len(t.versions)-1].m = t.cur
	return n
}
