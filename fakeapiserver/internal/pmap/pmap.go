package pmap

import "hash/maphash"

// seed makes priorities unpredictable to clients, so keys chosen by a
// client cannot unbalance the tree.
var seed = maphash.MakeSeed()

type node[V any] struct {
	key         string
	val         V
	prio        uint64
	size        int
	left, right *node[V]
}

func (n *node[V]) sz() int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *node[V]) fix() *node[V] {
	n.size = 1 + n.left.sz() + n.right.sz()
	return n
}

func (n *node[V]) clone() *node[V] {
	c := *n
	return &c
}

// Map is an immutable sorted map. The zero Map is empty and ready to use.
// A Map is a value; it is safe for concurrent use because it never changes.
type Map[V any] struct {
	root *node[V]
}

// Len returns the number of keys.
func (m Map[V]) Len() int { return m.root.sz() }

// Get returns the value stored under key.
func (m Map[V]) Get(key string) (V, bool) {
	n := m.root
	for n != nil {
		switch {
		case key < n.key:
			n = n.left
		case key > n.key:
			n = n.right
		default:
			return n.val, true
		}
	}
	var zero V
	return zero, false
}

// Set returns a map in which key holds val.
func (m Map[V]) Set(key string, val V) Map[V] {
	return Map[V]{root: insert(m.root, key, val, maphash.String(seed, key))}
}

func insert[V any](n *node[V], key string, val V, prio uint64) *node[V] {
	if n == nil {
		return &node[V]{key: key, val: val, prio: prio, size: 1}
	}
	c := n.clone()
	switch {
	case key < n.key:
		c.left = insert(n.left, key, val, prio)
		if c.left.prio > c.prio {
			return rotateRight(c)
		}
	case key > n.key:
		c.right = insert(n.right, key, val, prio)
		if c.right.prio > c.prio {
			return rotateLeft(c)
		}
	default:
		c.val = val
		return c
	}
	return c.fix()
}

// rotateRight lifts c.left above c. Both must be fresh copies.
func rotateRight[V any](c *node[V]) *node[V] {
	l := c.left
	c.left = l.right
	l.right = c.fix()
	return l.fix()
}

// rotateLeft lifts c.right above c. Both must be fresh copies.
func rotateLeft[V any](c *node[V]) *node[V] {
	r := c.right
	c.right = r.left
	r.left = c.fix()
	return r.fix()
}

// Delete returns a map without key (the same map when key is absent).
func (m Map[V]) Delete(key string) Map[V] {
	root, ok := remove(m.root, key)
	if !ok {
		return m
	}
	return Map[V]{root: root}
}

func remove[V any](n *node[V], key string) (*node[V], bool) {
	if n == nil {
		return nil, false
	}
	switch {
	case key < n.key:
		l, ok := remove(n.left, key)
		if !ok {
			return n, false
		}
		c := n.clone()
		c.left = l
		return c.fix(), true
	case key > n.key:
		r, ok := remove(n.right, key)
		if !ok {
			return n, false
		}
		c := n.clone()
		c.right = r
		return c.fix(), true
	default:
		return merge(n.left, n.right), true
	}
}

// merge joins two treaps whose keys are all ordered a < b.
func merge[V any](a, b *node[V]) *node[V] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		c := a.clone()
		c.right = merge(a.right, b)
		return c.fix()
	default:
		c := b.clone()
		c.left = merge(a, b.left)
		return c.fix()
	}
}

// Rank returns how many keys sort before key.
func (m Map[V]) Rank(key string) int {
	rank := 0
	n := m.root
	for n != nil {
		if key <= n.key {
			n = n.left
		} else {
			rank += 1 + n.left.sz()
			n = n.right
		}
	}
	return rank
}

// Ascend calls fn for each key >= from in increasing order until fn
// returns false.
func (m Map[V]) Ascend(from string, fn func(key string, val V) bool) {
	var stack []*node[V]
	n := m.root
	for n != nil {
		if n.key >= from {
			stack = append(stack, n)
			n = n.left
		} else {
			n = n.right
		}
	}
	for len(stack) > 0 {
		n = stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(n.key, n.val) {
			return
		}
		for c := n.right; c != nil; c = c.left {
			stack = append(stack, c)
		}
	}
}
