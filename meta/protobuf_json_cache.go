package meta

import (
	"hash/maphash"
	"sync/atomic"
	"unsafe"

	"github.com/kubecache/kubecache/kubeproto"
)

// The protobuf-to-JSON writer's cache of whole messages: objects of one
// kind repeat most of their parts byte for byte (the pods of a
// ReplicaSet share their containers' resources, ports, env and probes,
// their tolerations, often whole containers), and a message's JSON
// depends on its bytes and its plan alone. A hit costs a hash and a
// comparison of the bytes instead of writing the message again.
//
// The table is direct-mapped and lock-free, as the intern table: a slot
// points to an entry that never changes once published. A message is
// stored the second time its hash is seen in a slot, so that messages
// seen once (the parts that differ from object to object) cost no copy.
// Only messages of plans that write the same JSON at any depth are
// cached (no raw JSON, no recursion: see jsonPlan.cacheable).

// cachedMessage is the JSON of one message.
type cachedMessage struct {
	plan *jsonPlan
	wire string
	json string
}

// messageCacheSlots is the size of the table.
const messageCacheSlots = 2048

var (
	messageCache [messageCacheSlots]atomic.Pointer[cachedMessage]
	// messageSeen holds the hash last seen in each slot that was not
	// stored.
	messageSeen [messageCacheSlots]atomic.Uint64
)

// Bounds of the messages the cache holds, in bytes of protobuf: smaller
// ones are written faster than looked up, and larger ones seldom repeat.
const (
	minCachedMessage = 24
	maxCachedMessage = 1024
)

// cachedValue writes the message wf of plan p (as a JSON object) from
// the cache, or writes it and offers it to the cache.
func (w *jsonWriter) cachedValue(p *jsonPlan, wf kubeproto.WireField, depth int) bool {
	h := maphash.Bytes(internSeed, wf.Data) ^ uint64(uintptr(unsafe.Pointer(p)))*0x9e3779b97f4a7c15
	i := h % messageCacheSlots
	if e := messageCache[i].Load(); e != nil && e.plan == p && e.wire == string(wf.Data) {
		w.out = append(w.out, e.json...)
		return true
	}
	start := len(w.out)
	w.out = append(w.out, '{')
	if _, ok := w.members(p, wf.Data, depth+1, true); !ok {
		return false
	}
	w.out = append(w.out, '}')
	if messageSeen[i].Swap(h) == h {
		messageCache[i].Store(&cachedMessage{plan: p, wire: string(wf.Data), json: string(w.out[start:])})
	}
	return true
}

// finish computes the cacheability of p and of the plans it holds.
func (p *jsonPlan) finish() {
	p.height()
}

// Plan states of height's walk.
const (
	planNew = iota
	planVisiting
	planDone
)

// height returns how deeply messages nest below p (0: no message
// fields), or -1 when p's messages nest without bound (a recursive
// message), and sets p.cacheable: p writes the same JSON for the same
// bytes at any depth it is met at, within maxProtoDepth - height.
func (p *jsonPlan) height() int {
	switch p.state {
	case planVisiting:
		return -1
	case planDone:
		return p.depth
	}
	p.state = planVisiting
	h, ok := 0, !p.slow
	for i := range p.fields {
		f := &p.fields[i]
		switch f.kind {
		case kubeproto.KindRawExtension, kubeproto.KindJSON, kubeproto.KindFieldsV1:
			ok = false // the writer's check of raw JSON depends on the depth
		}
		if f.sub == nil {
			continue
		}
		sh := f.sub.height()
		if sh < 0 {
			h = -1
			break
		}
		if f.shape != jsonInline {
			sh++
		}
		h = max(h, sh)
		ok = ok && f.sub.cacheable
	}
	p.state, p.depth = planDone, h
	p.cacheable = ok && h >= 0
	return h
}
