package reflector

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// goneOpts lists then watches, with waits from 1s to 30s and probes of a
// gone resource at most 4s apart.
var goneOpts = Options{
	DisableStreamingList: true,
	Backoff:              Backoff{Initial: time.Second, Max: 30 * time.Second},
	ResourceGoneMaxWait:  4 * time.Second,
}

func TestResourceGoneIsProbedWithGrowingWaitsAndReportedOnce(t *testing.T) {
	h := start(t, goneOpts)
	w := syncByList(t, h, "10", obj("a", "5"))
	w.add(obj("b", "11"))
	w.end()
	notFound := status(404, meta.ReasonNotFound)
	h.nextWatch().fail(notFound)

	// 1s, 2s, 4s, then 4s again: capped by ResourceGoneMaxWait. Every
	// probe is a consistent list.
	for i, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		h.expectBackoff(d)
		require.NotNil(t, h.r.Gone(), "probe %d: Gone while the resource is not served", i)
		l := h.nextList()
		assert.Equal(t, ListOptions{Limit: 500}, l.opts, "probe %d", i)
		if i < 3 {
			l.fail(notFound)
			continue
		}
		assert.Equal(t, []string{"a@5", "b@11"}, h.store.contents(), "the store kept what it held")
		l.answer("20", "", obj("b", "19"))
	}
	h.nextWatch().open()
	h.store.waitContents(t, "b@19")
	h.waitTraces(func(h *harness) bool { return h.r.Gone() == nil })

	errs := h.errors()
	require.Len(t, errs, 1, "a resource that stays gone is reported once")
	assert.Equal(t, "watch", errs[0].Op)
	assert.Equal(t, ClassNeedsHuman, errs[0].Class)
	g, ok := errs[0].Next.(ResourceGone)
	require.True(t, ok, "next = %v", errs[0].Next)
	assert.Equal(t, time.Second, g.Delay)
	assert.Zero(t, g.Probes)

	var gone []ResourceGone
	h.mu.Lock()
	for _, ev := range h.traces {
		if sc, ok := ev.(StateChanged); ok {
			if g, ok := sc.To.(ResourceGone); ok {
				gone = append(gone, g)
			}
		}
	}
	h.mu.Unlock()
	require.Len(t, gone, 4, "each probe traced")
	for i, g := range gone {
		assert.Equal(t, i, g.Probes)
		assert.Equal(t, gone[0].Since, g.Since, "Since is the first 404")
	}
}

func TestResourceGoneEmptiesTheStoreWhenAsked(t *testing.T) {
	opts := goneOpts
	opts.EmptyWhenGone = true
	h := start(t, opts)
	w := syncByList(t, h, "10", obj("a", "5"), obj("b", "7"))
	w.fail(status(404, meta.ReasonNotFound))
	h.store.waitContents(t)
	h.expectBackoff(time.Second)
	h.nextList().answer("30", "", obj("c", "29"))
	h.nextWatch().open()
	h.store.waitContents(t, "c@29")
}

func TestResourceGoneBeforeTheFirstListNeitherSyncsNorEmpties(t *testing.T) {
	opts := goneOpts
	opts.EmptyWhenGone = true
	h := start(t, opts)
	h.nextList().fail(status(404, meta.ReasonNotFound))
	h.expectBackoff(time.Second)
	g := h.r.Gone()
	require.NotNil(t, g)
	assert.Contains(t, g.Error(), "Obj: resource not served since 2025-01-01T00:00:00Z: ")
	assert.False(t, h.r.HasSynced())
	h.store.mu.Lock()
	assert.Zero(t, h.store.replaced, "nothing to empty before a list")
	h.store.mu.Unlock()
	h.nextList().answer("3", "", obj("a", "2"))
	h.nextWatch().open()
	h.waitTraces(func(h *harness) bool { return h.r.HasSynced() && h.r.Gone() == nil })
}
