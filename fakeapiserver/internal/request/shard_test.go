package request

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// The uids and answers are a real v1.37.2 server's with the
// ShardedListAndWatch gate on: the first half of the hash space held
// default, kube-node-lease and kube-public, not kube-system.
func TestShardMatchesTheRealServersHash(t *testing.T) {
	s, err := ParseShard("shardRange(object.metadata.uid,'0x0000000000000000','0x8000000000000000')")
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", s.String())
	for uid, in := range map[string]bool{
		"41c4d3f9-0d6b-496a-98d6-5063b2adf11f": true,
		"c84f6170-8548-4960-a9d7-d719101ee622": true,
		"6e457ef2-c9c3-4a2b-87ca-7d78e6cc92e9": true,
		"8a534967-93c4-4963-8768-3bf7ddbf7686": false,
	} {
		assert.Equal(t, in, s.Matches(&meta.ObjectMeta{UID: uid}), uid)
	}
	// FNV-1a of the empty string is 0xcbf29ce484222325.
	assert.Equal(t, uint64(0xcbf29ce484222325), fnv64a(""))
}

func TestShardRangesJoinedAndNamespaceField(t *testing.T) {
	s, err := ParseShard(" shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000') ||" +
		" shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000') ")
	require.NoError(t, err)
	assert.Equal(t, "shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000') || "+
		"shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')", s.String())
	for _, ns := range []string{"a", "b", "default", "kube-system", ""} {
		h := fnv64a(ns)
		want := h < 0x4000000000000000 || h >= 0xc000000000000000
		assert.Equal(t, want, s.Matches(&meta.ObjectMeta{Namespace: ns, UID: "x"}), ns)
	}
	all, err := ParseShard("shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')")
	require.NoError(t, err)
	assert.True(t, all.Matches(&meta.ObjectMeta{UID: "anything"}))
}

// The messages are the real server's (after "invalid shard selector: "),
// each checked against a v1.37.2 server with the ShardedListAndWatch gate on.
func TestParseShardErrors(t *testing.T) {
	for expr, msg := range map[string]string{
		"  ": "empty shard selector is not allowed; omit the parameter for unfiltered lists",
		"shardRange(object.metadata.uid, '0x0', '0x8')":                                `hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`,
		"shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')": `unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace`,
		"foo(":                                  "CEL parse error: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
		"shardRange(object.metadata.uid, 0, 1)": "hexStart must be a string literal, got int64",
		"shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')":   "shard range start 0x8000000000000000 must be less than end 0x8000000000000000",
		"shardRange(object.metadata.uid, '0x10000000000000000', '0x10000000000000000')": "shard range start 0x10000000000000000 must be less than end 0x10000000000000000",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x1000000000000000F')":  `hexEnd: invalid hex character "F" in "0x1000000000000000F"`,
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')":  `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x20000000000000000"`,
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x100000000000000000')": `hexEnd: hex value too long (18 chars, max 17): "100000000000000000"`,
		"shardRange(object.metadata.uid, '0x0000000000000000', 'ff')":                   `hexEnd must have '0x' prefix, got "ff"`,
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x')":                   "hexEnd: hex value is required after '0x'",
		"shardRange(object.metadata.uid, '0x0000000000000000')":                         "shardRange() requires exactly 3 arguments, got 2",
		"shardRange(1, '0x0000000000000000', '0x8000000000000000')":                     "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5",
		"shardRange(object.metadata.uid, x, '0x8000000000000000')":                      "hexStart must be a string literal (e.g. '0xff'), got expression kind 3",
		"size(x)": `unsupported function "size"; only shardRange() and || are allowed`,
		"true":    "unexpected expression kind 5; expected shardRange() call or || operator",
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')": `all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"`,
	} {
		_, err := ParseShard(expr)
		if assert.Error(t, err, expr) {
			assert.Equal(t, msg, err.Error(), expr)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	f.Add("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')")
	f.Add("shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000') || shardRange(object.metadata.namespace, '0x0000000000000000', '0x1000000000000000')")
	f.Add("foo(")
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := ParseShard(expr)
		if err != nil {
			return
		}
		again, err := ParseShard(s.String())
		require.NoError(t, err, "the canonical form %q must parse", s.String())
		assert.Equal(t, s.String(), again.String())
		s.Matches(&meta.ObjectMeta{UID: expr})
	})
}
