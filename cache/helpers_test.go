package cache_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// testPod is the small object type the tests store: only what the cache
// looks at, plus one spec field for a custom index.
type testPod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            testPodSpec `json:"spec"`
}

type testPodSpec struct {
	NodeName string `json:"nodeName,omitempty"`
}

// podOn is newPod for a pod scheduled to node.
func podOn(node, namespace, name, rv string) *testPod {
	p := newPod(namespace, name, rv)
	p.Spec.NodeName = node
	return p
}

// newPod returns a pod; labels are given as key, value pairs.
func newPod(namespace, name, rv string, labels ...string) *testPod {
	p := &testPod{
		TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: meta.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: rv},
	}
	if len(labels) > 0 {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			p.Labels[labels[i]] = labels[i+1]
		}
	}
	return p
}

// byNode indexes pods by spec.nodeName; unscheduled pods are not indexed.
func byNode(p *testPod) ([]string, error) {
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

// nodeIndexer returns an empty Indexer with the "node" index (byNode)
// beside the namespace index.
func nodeIndexer(t testing.TB) *cache.Indexer[*testPod] {
	t.Helper()
	x := cache.NewIndexer[*testPod](nil)
	require.NoError(t, x.AddIndexers(cache.Indexers[*testPod]{"node": byNode}))
	return x
}

// indexerOf returns an Indexer that holds pods: what a queue's
// KnownObjects already knows.
func indexerOf(t *testing.T, pods ...*testPod) *cache.Indexer[*testPod] {
	t.Helper()
	x := cache.NewIndexer[*testPod](nil)
	for _, p := range pods {
		require.NoError(t, x.Add(p))
	}
	return x
}

// byLabelValues indexes a pod under every "key=value" of its labels.
func byLabelValues(p *testPod) ([]string, error) {
	out := make([]string, 0, len(p.Labels))
	for k, v := range p.Labels {
		out = append(out, k+"="+v)
	}
	return out, nil
}

// keysOf returns the sorted keys of objs.
func keysOf(objs []*testPod) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, meta.Key(o))
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := make([]string, len(s))
	copy(out, s)
	sort.Strings(out)
	return out
}

// The interfaces each type promises.
var (
	_ cache.Store[*testPod]        = (*cache.Indexer[*testPod])(nil)
	_ cache.Queue[*testPod]        = (*cache.DeltaFIFO[*testPod])(nil)
	_ cache.Queue[*testPod]        = (*cache.FIFO[*testPod])(nil)
	_ cache.KnownObjects[*testPod] = (*cache.Indexer[*testPod])(nil)
)
