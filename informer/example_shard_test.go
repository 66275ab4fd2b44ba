package informer_test

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

// Example_shards splits one resource between two informers, as two
// replicas of a controller would: each asks the server for its shard
// (reflector.ShardOf), and together they hold every object exactly once.
// The server must serve shardSelector (the ShardedListAndWatch feature
// gate); one that does not is reported as reflector.ErrShardNotServed.
func Example_shards() {
	srv := fakeapiserver.New(fakeapiserver.Options{ShardedListAndWatch: true})
	c, stop := connect(srv)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 20 {
		cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}}
		if err := c.Post().Namespace("default").Resource("configmaps").Body(cm).Do(ctx).Error(); err != nil {
			panic(err)
		}
	}

	var infs []*informer.Informer[*ConfigMap]
	for replica := range 2 {
		shard, err := reflector.ShardOf(replica, 2)
		if err != nil {
			panic(err)
		}
		fmt.Printf("replica %d asks for %s\n", replica, shard.Selector())
		lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: "default"})
		if err != nil {
			panic(err)
		}
		inf, err := informer.New(lw, informer.Options[*ConfigMap]{Reflector: reflector.Options{Shard: &shard}})
		if err != nil {
			panic(err)
		}
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		defer func() { cancel(); <-done }()
		infs = append(infs, inf)
	}
	if err := informer.WaitForCacheSync(ctx, infs[0], infs[1]); err != nil {
		panic(err)
	}
	held := map[string]int{}
	for _, inf := range infs {
		for _, cm := range inf.Indexer().List() {
			held[cm.Name]++
		}
	}
	once := 0
	for _, n := range held {
		if n == 1 {
			once++
		}
	}
	fmt.Printf("%d objects, %d of them held by exactly one replica\n", len(held), once)
	// Output:
	// replica 0 asks for shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
	// replica 1 asks for shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
	// 20 objects, 20 of them held by exactly one replica
}
