//go:build !load

package informer_test

import "time"

// shardObjects is how many ConfigMaps the sharding test spreads over its
// shards in the regular suite; the load build tag raises it to 100,000
// (shard_size_load_test.go).
const shardObjects = 4_000

// shardTimeout bounds each stage of the sharding test (seeding, and the
// rest).
const shardTimeout = 4 * time.Minute
