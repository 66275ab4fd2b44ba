//go:build load

package informer_test

// shardObjects is how many ConfigMaps the sharding test spreads over its
// shards under the load build tag:
//
//	go test -tags load -run TestShardsCover ./informer/
const shardObjects = 100_000
