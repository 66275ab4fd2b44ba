package informer_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

func TestFactorySharesOneInformerPerKey(t *testing.T) {
	e := newEnv(t)
	e.create("default", "a", nil)
	f := informer.NewFactory(e.c, informer.FactoryOptions{Reflector: reflector.Options{Backoff: fastBackoff}})
	spec := informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "configmaps"}}

	first, err := informer.For(f, spec)
	require.NoError(t, err)
	again, err := informer.For(f, spec)
	require.NoError(t, err)
	assert.Same(t, first, again, "same key, same informer")

	// Every part of the key makes a different informer.
	drop := informer.DropManagedFields[*ConfigMap]()
	others := map[string]informer.Syncer{}
	for name, s := range map[string]informer.Spec[*ConfigMap]{
		"namespace":      {Source: reflector.Source{Resource: "configmaps", Namespace: "default"}},
		"label selector": {Source: reflector.Source{Resource: "configmaps", LabelSelector: "app"}},
		"field selector": {Source: reflector.Source{Resource: "configmaps", FieldSelector: "metadata.name=a"}},
		"transform":      {Source: spec.Source, Transform: drop},
		"queue":          {Source: spec.Source, Queue: informer.DeltaFIFO},
		"skip unchanged": {Source: spec.Source, SkipUnchangedUpdates: true},
	} {
		inf, err := informer.For(f, s)
		require.NoError(t, err, name)
		assert.NotSame(t, first, inf, name)
		others[name] = inf
	}
	meta1, err := informer.For(f, informer.Spec[*meta.PartialObjectMetadata]{Source: spec.Source})
	require.NoError(t, err)
	assert.Equal(t, "configmaps", meta1.Name(), "the type is part of the key")
	sameTransform, err := informer.For(f, informer.Spec[*ConfigMap]{Source: spec.Source, Transform: informer.DropManagedFields[*ConfigMap]()})
	require.NoError(t, err)
	assert.Same(t, others["transform"], informer.Syncer(sameTransform), "a transform is known by its name")
	_, err = informer.For(f, informer.Spec[*ConfigMap]{Source: spec.Source, Transform: informer.Transform[*ConfigMap]{
		Func: func(cm *ConfigMap) (*ConfigMap, error) { return cm, nil },
	}})
	assert.ErrorIs(t, err, informer.ErrInvalidOptions, "a shared transform needs a name")
	_, err = informer.For(f, informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "a/b/c/d"}})
	assert.Error(t, err, "a bad source")

	// Two controllers on the shared informer: one watch between them.
	r1, r2 := newRecorder(), newRecorder()
	_, err = first.AddEventHandler(r1, informer.HandlerOptions{})
	require.NoError(t, err)
	_, err = first.AddEventHandler(r2, informer.HandlerOptions{})
	require.NoError(t, err)
	stop := run(t, f)
	require.NoError(t, f.WaitForCacheSync(e.ctx))
	r1.waitLen(t, 1)
	r2.waitLen(t, 1)
	watches := 1 + len(others) + 1 // first, the others, metadata-only
	require.NoError(t, e.srv.WaitForWatchers(e.ctx, "configmaps", watches))
	assert.Equal(t, watches, e.srv.Watchers("configmaps"))

	// An informer asked for while the factory runs is started at once.
	late, err := informer.For(f, informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "configmaps", Namespace: "kube-system"}})
	require.NoError(t, err)
	waitSynced(t, late)
	assert.Equal(t, "kube-system/configmaps", late.Name())

	assert.ErrorIs(t, f.Run(e.ctx), informer.ErrAlreadyStarted)
	stop()
	_, err = informer.For(f, informer.Spec[*ConfigMap]{Source: reflector.Source{Resource: "secrets"}})
	assert.ErrorIs(t, err, informer.ErrStopped)
	again, err = informer.For(f, spec)
	require.NoError(t, err, "an existing informer is still returned")
	assert.Same(t, first, again)
}

// TestFactoryShardsOneInformer: a Spec's shard applies to its informer
// alone. Two informers with the two halves of the resource hold every
// object once between them, an unsharded one holds them all, and the same
// shard asked for again is the same informer.
func TestFactoryShardsOneInformer(t *testing.T) {
	e := newEnvWith(t, fakeapiserver.Options{ShardedListAndWatch: true})
	for i := range 20 {
		e.create("default", "cm-"+strconv.Itoa(i), nil)
	}
	f := informer.NewFactory(e.c, informer.FactoryOptions{Reflector: reflector.Options{Backoff: fastBackoff}})
	src := reflector.Source{Resource: "configmaps"}
	var halves []*informer.Informer[*ConfigMap]
	for i := range 2 {
		shard, err := reflector.ShardOf(i, 2)
		require.NoError(t, err)
		inf, err := informer.For(f, informer.Spec[*ConfigMap]{Source: src, Shard: &shard})
		require.NoError(t, err)
		again, err := informer.For(f, informer.Spec[*ConfigMap]{Source: src, Shard: &shard})
		require.NoError(t, err)
		assert.Same(t, inf, again, "one shard, one informer")
		assert.Equal(t, "configmaps "+shard.String(), inf.Name())
		halves = append(halves, inf)
	}
	assert.NotSame(t, halves[0], halves[1])
	whole, err := informer.For(f, informer.Spec[*ConfigMap]{Source: src})
	require.NoError(t, err)
	run(t, f)
	require.NoError(t, f.WaitForCacheSync(e.ctx))

	assert.Len(t, whole.Indexer().ListKeys(), 20)
	seen := map[string]int{}
	for _, h := range halves {
		for _, k := range h.Indexer().ListKeys() {
			seen[k]++
		}
	}
	assert.Len(t, seen, 20, "the halves cover every object")
	for k, n := range seen {
		assert.Equal(t, 1, n, "%s is in one half only", k)
	}
}
