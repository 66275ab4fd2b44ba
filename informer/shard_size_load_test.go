//go:build load

package informer_test

import "time"

// shardObjects is how many ConfigMaps the sharding test spreads over its
// shards under the load build tag:
//
//	go test -tags load -run TestShardsCover ./informer/
const shardObjects = 100_000

// shardTimeout bounds each stage of the sharding test (seeding, and the
// rest).
const shardTimeout = 20 * time.Minute
