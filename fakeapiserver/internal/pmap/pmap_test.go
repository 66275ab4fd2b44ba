package pmap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// model is the obvious implementation the treap is checked against.
type model map[string]int

func (m model) keys() []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func check(t *testing.T, m Map[int], want model) {
	t.Helper()
	require.Equal(t, len(want), m.Len())
	var got []string
	m.Ascend("", func(k string, v int) bool {
		got = append(got, k)
		assert.Equal(t, want[k], v, "value of %q", k)
		return true
	})
	keys := want.keys()
	require.Equal(t, keys, append([]string(nil), got...))
	for i, k := range keys {
		assert.Equal(t, i, m.Rank(k), "Rank(%q)", k)
		v, ok := m.Get(k)
		assert.True(t, ok)
		assert.Equal(t, want[k], v)
	}
	_, ok := m.Get("absent-key")
	assert.False(t, ok)
}

func TestRandomOperationsAgainstModelAndOldVersionsSurvive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var m Map[int]
	want := model{}
	type version struct {
		m    Map[int]
		want model
	}
	var versions []version
	for i := range 3000 {
		k := fmt.Sprintf("ns%d/obj%d", rng.IntN(5), rng.IntN(200))
		if rng.IntN(3) == 0 {
			m = m.Delete(k)
			delete(want, k)
		} else {
			m = m.Set(k, i)
			want[k] = i
		}
		if i%300 == 0 {
			versions = append(versions, version{m, maps(want)})
		}
	}
	check(t, m, want)
	for _, v := range versions {
		check(t, v.m, v.want)
	}
}

func maps(m model) model {
	c := model{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

func TestAscendFromAndStop(t *testing.T) {
	var m Map[int]
	for i, k := range []string{"b", "d", "a", "c", "e"} {
		m = m.Set(k, i)
	}
	var got []string
	m.Ascend("bb", func(k string, _ int) bool {
		got = append(got, k)
		return len(got) < 2
	})
	assert.Equal(t, []string{"c", "d"}, got)
	assert.Equal(t, 2, m.Rank("bb"))
	assert.Equal(t, 5, m.Rank("z"))
	same := m.Delete("zz")
	assert.Equal(t, m, same, "deleting an absent key returns the same map")
}

func TestBalancedForSortedInsertions(t *testing.T) {
	var m Map[int]
	for i := range 100000 {
		m = m.Set(fmt.Sprintf("%08d", i), i)
	}
	var depth func(n *node[int]) int
	depth = func(n *node[int]) int {
		if n == nil {
			return 0
		}
		return 1 + max(depth(n.left), depth(n.right))
	}
	assert.Less(t, depth(m.root), 60, "a treap of 100k keys should be far shallower than a list")
	keys := make([]string, 0, m.Len())
	m.Ascend("", func(k string, _ int) bool { keys = append(keys, k); return true })
	assert.True(t, slices.IsSorted(keys))
}

func BenchmarkSet(b *testing.B) {
	var m Map[int]
	for i := 0; b.Loop(); i++ {
		m = m.Set(fmt.Sprintf("ns/%d", i%100000), i)
	}
}
