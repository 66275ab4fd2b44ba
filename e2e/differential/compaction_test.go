package differential

import (
	"fmt"
	"testing"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

const events = "/api/v1/namespaces/{ns}/events"

func event(name string) Request {
	return post(events, fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":%q},`+
		`"involvedObject":{"kind":"ConfigMap","apiVersion":"v1","name":"x","namespace":"{ns}"},`+
		`"reason":"Test","message":"e2e","type":"Normal","source":{"component":"kubecache-e2e"}}`, name))
}

// TestCompaction covers the 410 Expired answers after the storage was
// compacted (docs/api-semantics.md, "History that is gone: 410"): an exact list, a continue token and a watch from
// a compacted resourceVersion. It uses core events, which a real server
// serves without a watch cache, so compaction shows at once. Not parallel:
// compaction touches every resource.
func TestCompaction(t *testing.T) {
	s := pair(t)
	tgt := target.Get(t)
	tgt.RequireCompact(t)
	c := s.NewCase(t, "e2e-compaction")
	c.Setup(event("e1"), event("e2"))
	c.RV("rv", get(events))
	c.Continue("cont", get(events+"?limit=1"))
	// Two more writes: a watch from {rv} needs e3's revision, which the
	// compaction (at e4's revision or later) removes.
	c.Setup(event("e3"), event("e4"))
	if _, err := tgt.Compact(c.Ctx); err != nil {
		t.Fatalf("compact the real server: %v", err)
	}
	pairFake.Fake.CompactNow()
	c.Compare("exact list at a compacted RV (410)", get(events+"?resourceVersion={rv}&resourceVersionMatch=Exact"))
	c.Compare("limit list at a compacted RV (410)", get(events+"?resourceVersion={rv}&limit=1"))
	c.Compare("continue token from before compaction (410 with a new token)", get(events+"?limit=1&continue={cont}"))
	c.CompareWatch("watch from a compacted RV (ERROR 410)", Request{Path: events + "?watch=true&timeoutSeconds=" + watchFor + "&resourceVersion={rv}"}, nil)
	c.Compare("not-older-than list at a compacted RV", get(events+"?resourceVersion={rv}"))
}
