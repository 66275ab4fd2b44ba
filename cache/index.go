package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// IndexFunc computes the values an object is indexed under: zero, one or
// many. It must be deterministic and depend only on the object, and it must
// not modify it. An error means the object cannot be stored.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers names index functions. The name is what Index, ByIndex,
// IndexKeys and ListIndexFuncValues take.
type Indexers[T any] map[string]IndexFunc[T]

// NamespaceIndex is the name of the index every Indexer has built in: by
// metadata.namespace, with cluster-scoped objects under "".
const NamespaceIndex = "namespace"

// MetaNamespaceIndexFunc indexes an object by its namespace. It is the
// function behind NamespaceIndex, which the Indexer runs without calling it
// (and without its allocation).
func MetaNamespaceIndexFunc[T meta.Object](obj T) ([]string, error) {
	if meta.IsNil(obj) {
		return nil, ErrNilObject
	}
	return []string{obj.GetObjectMeta().Namespace}, nil
}

// ErrUnknownIndex is returned, wrapped with the name asked for, by index
// queries that name an index the Indexer does not have.
var ErrUnknownIndex = errors.New("no index with this name")

// indexDef is one named index as the store runs it. The built-in namespace
// index has no function: the store reads the namespace directly.
type indexDef[T meta.Object] struct {
	name string
	fn   IndexFunc[T]
}

// appendValues appends obj's values for this index to dst.
func (d *indexDef[T]) appendValues(dst []string, obj T) ([]string, error) {
	if d.fn == nil {
		return append(dst, obj.GetObjectMeta().Namespace), nil
	}
	vals, err := d.fn(obj)
	if err != nil {
		return dst, fmt.Errorf("index %q: %w", d.name, err)
	}
	return append(dst, vals...), nil
}

// indexValues holds the values of one object for every index of a store,
// flattened: the values of index i are vals[ends[i-1]:ends[i]]. A writer
// reuses one indexValues for every operation, so computing them does not
// allocate once the buffers have grown (beyond what index functions
// themselves allocate).
type indexValues struct {
	vals []string
	ends []int
}

// of returns the values of index i.
func (v *indexValues) of(i int) []string {
	start := 0
	if i > 0 {
		start = v.ends[i-1]
	}
	return v.vals[start:v.ends[i]]
}

// reset empties v, dropping the strings it held so they can be collected.
func (v *indexValues) reset() {
	clear(v.vals)
	v.vals = v.vals[:0]
	v.ends = v.ends[:0]
}

// computeValues fills v with obj's values for each of defs.
func computeValues[T meta.Object](v *indexValues, defs []*indexDef[T], obj T) error {
	v.reset()
	for _, d := range defs {
		var err error
		if v.vals, err = d.appendValues(v.vals, obj); err != nil {
			return err
		}
		v.ends = append(v.ends, len(v.vals))
	}
	return nil
}

// valueIndex is the data of one index: for each value, the objects indexed
// under it, by key. Holding the objects (not only their keys) lets ByIndex
// answer from one map without a second lookup per object.
//
// Value strings are interned: the index keeps one private copy of each
// distinct value, however many objects have it, and never a string that
// pins an object's memory.
type valueIndex[T meta.Object] map[string]map[string]T

// add indexes obj under key for each of values. A set created for a value
// gets room for sizes[value] keys (sizes may be nil), so that rebuilding an
// index whose set sizes are known does not grow its sets step by step.
func (ix valueIndex[T]) add(key string, obj T, values []string, sizes map[string]int) {
	for _, v := range values {
		set, ok := ix[v]
		if !ok {
			set = make(map[string]T, max(1, sizes[v]))
			ix[strings.Clone(v)] = set
		}
		set[key] = obj
	}
}

// sizes returns the number of keys under each value.
func (ix valueIndex[T]) sizes() map[string]int {
	out := make(map[string]int, len(ix))
	for v, set := range ix {
		out[v] = len(set)
	}
	return out
}

// remove drops key from the sets of values, and drops sets left empty.
func (ix valueIndex[T]) remove(key string, values []string) {
	for _, v := range values {
		set, ok := ix[v]
		if !ok {
			continue
		}
		delete(set, key)
		if len(set) == 0 {
			delete(ix, v)
		}
	}
}

// removeEverywhere drops key from every set. It is the slow path for an
// object whose old values cannot be recomputed.
func (ix valueIndex[T]) removeEverywhere(key string) {
	for v, set := range ix {
		delete(set, key)
		if len(set) == 0 {
			delete(ix, v)
		}
	}
}

// update moves key from the sets of oldValues to those of newValues and
// points every set at the new object.
func (ix valueIndex[T]) update(key string, obj T, oldValues, newValues []string) {
	if !slices.Equal(oldValues, newValues) {
		ix.remove(key, oldValues)
	}
	ix.add(key, obj, newValues, nil)
}
