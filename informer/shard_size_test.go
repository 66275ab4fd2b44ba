//go:build !load

package informer_test

// shardObjects is how many ConfigMaps the sharding test spreads over its
// shards in the regular suite; the load build tag raises it to 100,000
// (shard_size_load_test.go).
const shardObjects = 10_000
