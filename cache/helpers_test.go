package cache_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
)

// podOn is newPod for a pod scheduled to node.
func podOn(node, namespace, name, rv string) *Pod {
	p := newPod(namespace, name, rv)
	p.Spec.NodeName = node
	return p
}

// newPod returns a pod; labels are given as key, value pairs.
func newPod(namespace, name, rv string, labels ...string) *Pod {
	p := &Pod{
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
func byNode(p *Pod) ([]string, error) {
	if p.Spec.NodeName == "" {
		return nil, nil
	}
	return []string{p.Spec.NodeName}, nil
}

// nodeIndexer returns an empty Indexer with the "node" index (byNode)
// beside the namespace index.
func nodeIndexer(t testing.TB) *cache.Indexer[*Pod] {
	t.Helper()
	x := cache.NewIndexer[*Pod](nil)
	require.NoError(t, x.AddIndexers(cache.Indexers[*Pod]{"node": byNode}))
	return x
}

// indexerOf returns an Indexer that holds pods: what a queue's
// KnownObjects already knows.
func indexerOf(t *testing.T, pods ...*Pod) *cache.Indexer[*Pod] {
	t.Helper()
	x := cache.NewIndexer[*Pod](nil)
	for _, p := range pods {
		require.NoError(t, x.Add(p))
	}
	return x
}

// byLabelValues indexes a pod under every "key=value" of its labels.
func byLabelValues(p *Pod) ([]string, error) {
	out := make([]string, 0, len(p.Labels))
	for k, v := range p.Labels {
		out = append(out, k+"="+v)
	}
	return out, nil
}

// keysOf returns the sorted keys of objs.
func keysOf(objs []*Pod) []string {
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
	_ cache.Store[*Pod]        = (*cache.Indexer[*Pod])(nil)
	_ cache.Queue[*Pod]        = (*cache.DeltaFIFO[*Pod])(nil)
	_ cache.Queue[*Pod]        = (*cache.FIFO[*Pod])(nil)
	_ cache.KnownObjects[*Pod] = (*cache.Indexer[*Pod])(nil)
)
