package reflector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// Sharded list and watch: N processes each cache a disjoint part of one
// resource by asking the server for a shardSelector (the API server's
// ShardedListAndWatch feature, alpha in Kubernetes 1.36, off by default).
// The parts are ranges of the 64-bit FNV-1a hash of each object's uid (or
// namespace); since neither ever changes, an object stays in its shard for
// its whole life, and shards that tile the hash space cover every object
// exactly once.
//
// A server without the feature ignores the parameter and sends
// everything. The reflector notices and says so (ErrShardNotServed, in the
// NeedsHuman class: retried every Backoff.Max, the cache never synced): a
// list must confirm the shard in metadata.shardInfo, and every object
// listed or watched must hash into the shard. Streaming lists carry no
// such confirmation, so a sharded reflector lists with LIST.

// ShardField is the metadata field whose hash places an object in a shard.
type ShardField string

// The fields a shard may hash, as the server names them.
const (
	// ShardByUID hashes metadata.uid: objects spread evenly over shards.
	ShardByUID ShardField = "object.metadata.uid"
	// ShardByNamespace hashes metadata.namespace: each namespace is
	// whole in one shard.
	ShardByNamespace ShardField = "object.metadata.namespace"
)

// Shard is one part of a resource: the objects whose field hashes into
// [First, Last], both included. ShardOf builds the usual equal parts.
type Shard struct {
	// Field is what is hashed; "" means ShardByUID.
	Field ShardField
	// First and Last bound the hashes of the shard, both included:
	// First 0 and Last math.MaxUint64 is the whole resource.
	First, Last uint64
}

// ShardOf returns shard index of count equal shards over the uid hash
// (index from 0): count processes, each with its own index, cover every
// object exactly once. It fails when count < 1 or index is outside
// [0, count).
func ShardOf(index, count int) (Shard, error) {
	if count < 1 || index < 0 || index >= count {
		return Shard{}, fmt.Errorf("%w: shard %d of %d: want 0 <= index < count", ErrInvalidOptions, index, count)
	}
	first, _ := bits.Div64(uint64(index), 0, uint64(count))
	last := uint64(math.MaxUint64)
	if index+1 < count {
		next, _ := bits.Div64(uint64(index+1), 0, uint64(count))
		last = next - 1
	}
	return Shard{First: first, Last: last}, nil
}

// field returns the hashed field, defaulted.
func (s Shard) field() ShardField {
	if s.Field == "" {
		return ShardByUID
	}
	return s.Field
}

// check reports a shard the server cannot be asked for.
func (s Shard) check() error {
	if f := s.field(); f != ShardByUID && f != ShardByNamespace {
		return fmt.Errorf("Shard.Field %q: want %q or %q", s.Field, ShardByUID, ShardByNamespace)
	}
	if s.First > s.Last {
		return fmt.Errorf("Shard.First %#x is after Shard.Last %#x", s.First, s.Last)
	}
	return nil
}

// Selector returns the shard as the shardSelector parameter, in the form
// the server echoes back: shardRange(object.metadata.uid,
// '0x0000000000000000', '0x4000000000000000'), the end excluded (and
// '0x10000000000000000', 2^64, for a shard that reaches the top).
func (s Shard) Selector() string {
	end := "0x10000000000000000"
	if s.Last != math.MaxUint64 {
		end = fmt.Sprintf("0x%016x", s.Last+1)
	}
	return fmt.Sprintf("shardRange(%s, '0x%016x', '%s')", s.field(), s.First, end)
}

// String returns the selector.
func (s Shard) String() string { return s.Selector() }

// Contains reports whether the object with metadata m is in the shard.
func (s Shard) Contains(m *meta.ObjectMeta) bool {
	h := ShardHash(s.value(m))
	return s.First <= h && h <= s.Last
}

// value returns m's hashed field.
func (s Shard) value(m *meta.ObjectMeta) string {
	if s.field() == ShardByNamespace {
		return m.Namespace
	}
	return m.UID
}

// ShardHash is the hash shards divide: 64-bit FNV-1a of the field's value.
func ShardHash(value string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(value); i++ {
		h ^= uint64(value[i])
		h *= 1099511628211
	}
	return h
}

// ErrShardNotServed: a sharded reflector's server does not serve
// shardSelector (its ShardedListAndWatch feature gate is off, or it
// predates it): a list did not confirm the shard, or an object outside the
// shard arrived. Nothing is stored from that list or event.
var ErrShardNotServed = errors.New("server does not serve shardSelector (the ShardedListAndWatch feature gate, alpha in Kubernetes 1.36, must be on)")

// shardedLW asks the ListerWatcher it wraps for one shard on every list
// and watch, and checks that every list confirms it.
type shardedLW[T meta.Object] struct {
	lw       ListerWatcher[T]
	shard    Shard
	selector string
}

// List lists the shard and refuses a response that does not say it holds
// the shard.
func (s *shardedLW[T]) List(ctx context.Context, opts ListOptions, known Known[T], emit func(T) error) (meta.ListMeta, error) {
	opts.ShardSelector = s.selector
	lm, err := s.lw.List(ctx, opts, known, emit)
	if err != nil {
		return lm, err
	}
	switch {
	case lm.ShardInfo == nil:
		return lm, fmt.Errorf("%w: the list of %s has no metadata.shardInfo", ErrShardNotServed, s.selector)
	case stripSpaces(lm.ShardInfo.Selector) != stripSpaces(s.selector):
		return lm, fmt.Errorf("%w: asked for %s, the list holds %s", ErrShardNotServed, s.selector, lm.ShardInfo.Selector)
	}
	return lm, nil
}

// Watch watches the shard.
func (s *shardedLW[T]) Watch(ctx context.Context, opts ListOptions, known Known[T]) (watch.Interface[T], error) {
	opts.ShardSelector = s.selector
	return s.lw.Watch(ctx, opts, known)
}

// stripSpaces drops the spaces of a selector, which do not change it.
func stripSpaces(s string) string { return strings.ReplaceAll(s, " ", "") }

// checkShard refuses an object outside the reflector's shard: the server
// sent it, so it ignores shardSelector.
func (r *Reflector[T]) checkShard(m *meta.ObjectMeta) error {
	if r.opts.Shard == nil || r.opts.Shard.Contains(m) {
		return nil
	}
	return fmt.Errorf("%w: it sent %s (%s hash %#016x), outside %s", ErrShardNotServed,
		objectKey(m.Namespace, m.Name), r.opts.Shard.field(), ShardHash(r.opts.Shard.value(m)), r.opts.Shard.Selector())
}
