package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/selector"
)

func TestLister(t *testing.T) {
	x := cache.NewIndexer[*Pod](nil)
	for _, p := range []*Pod{
		newPod("ns1", "web-0", "1", "app", "web"),
		newPod("ns1", "db-0", "1", "app", "db"),
		newPod("ns2", "web-0", "1", "app", "web", "env", "prod"),
		newPod("", "node-a", "1", "app", "web"),
	} {
		require.NoError(t, x.Add(p))
	}
	l := cache.NewLister(x)
	web, err := selector.ParseLabels("app=web")
	require.NoError(t, err)
	prod, err := selector.ParseLabels("app in (web,db),env=prod")
	require.NoError(t, err)

	assert.Equal(t, []string{"node-a", "ns1/db-0", "ns1/web-0", "ns2/web-0"}, keysOf(l.List(selector.Everything())))
	assert.Equal(t, []string{"node-a", "ns1/web-0", "ns2/web-0"}, keysOf(l.List(web)))
	assert.Equal(t, []string{"ns2/web-0"}, keysOf(l.List(prod)))
	assert.Equal(t, []string{"ns1/db-0", "ns1/web-0"}, keysOf(l.Namespace("ns1").List(selector.Labels{})))
	assert.Equal(t, []string{"ns1/web-0"}, keysOf(l.Namespace("ns1").List(web)))
	assert.Empty(t, l.Namespace("ns3").List(web))
	assert.Equal(t, []string{"node-a"}, keysOf(l.Namespace("").List(web)), "the empty namespace holds cluster-scoped objects")

	got, err := l.Namespace("ns2").Get("web-0")
	require.NoError(t, err)
	assert.Equal(t, "prod", got.Labels["env"])
	got, err = l.Get("node-a")
	require.NoError(t, err)
	assert.Equal(t, "node-a", got.Name)

	_, err = l.Namespace("ns2").Get("db-0")
	assert.ErrorIs(t, err, cache.ErrNotFound)
	assert.Contains(t, err.Error(), `"ns2/db-0"`)
	_, err = l.Get("web-0")
	assert.ErrorIs(t, err, cache.ErrNotFound, "a namespaced object is not found by its bare name")
}
