package cache

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/kubecache/kubecache/meta"
)

// ErrIndexExists is returned, wrapped with the name, by AddIndexers for an
// index name the Indexer already has.
var ErrIndexExists = errors.New("index already exists")

// threadSafeStore is the keyed map and its indexes behind an Indexer: safe
// for many concurrent readers and one writer at a time.
//
// Two locks keep readers fast. Writers take turns on writeMu and do their
// work — computing index values, which runs user code, and building a whole
// new map for a replace — while holding only writeMu. They take mu, which
// readers share, exclusively only to apply the change they computed: a few
// map assignments, or swapping in a new map. A reader therefore never waits
// for more than that.
type threadSafeStore[T meta.Object] struct {
	// writeMu serializes writers. It guards the scratch buffers below, and
	// a writer holding it may read the fields mu guards without taking mu,
	// since only writers holding writeMu change them.
	writeMu sync.Mutex
	oldVals indexValues
	newVals indexValues

	// mu guards the store's contents. Readers take it shared; writers take
	// it exclusively, only while holding writeMu, and only to apply a
	// change.
	mu sync.RWMutex
	// data holds every object by key.
	data map[string]T
	// defs are the indexes, the built-in namespace index first. The slice
	// is copy-on-write and append-only: AddIndexers installs a new, longer
	// slice, so a snapshot of defs stays valid and is a prefix of any later
	// one.
	defs []*indexDef[T]
	// indices[i] holds the data of index defs[i].
	indices []valueIndex[T]
	// resourceVersion is the one passed to the last replace.
	resourceVersion string
}

func newThreadSafeStore[T meta.Object]() *threadSafeStore[T] {
	return &threadSafeStore[T]{
		data:    make(map[string]T),
		defs:    []*indexDef[T]{{name: NamespaceIndex}},
		indices: []valueIndex[T]{{}},
	}
}

// put stores obj under key, replacing any object there, and returns the
// object it replaced. On error nothing changes and old is the zero value.
func (s *threadSafeStore[T]) put(key string, obj T) (old T, hadOld bool, err error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	defs := s.defs
	if err := computeValues(&s.newVals, defs, obj); err != nil {
		s.newVals.reset()
		var zero T
		return zero, false, fmt.Errorf("object %q: %w", key, err)
	}
	old, hadOld = s.data[key]
	oldKnown := hadOld && computeValues(&s.oldVals, defs, old) == nil

	s.mu.Lock()
	s.data[key] = obj
	for i, ix := range s.indices {
		switch {
		case !hadOld:
			ix.add(key, obj, s.newVals.of(i), nil)
		case oldKnown:
			ix.update(key, obj, s.oldVals.of(i), s.newVals.of(i))
		default:
			// An index function failed on the old object although it
			// succeeded when the object was stored: the object was
			// modified in place. Find its entries the slow way.
			ix.removeEverywhere(key)
			ix.add(key, obj, s.newVals.of(i), nil)
		}
	}
	s.mu.Unlock()

	s.newVals.reset()
	s.oldVals.reset()
	return old, hadOld, nil
}

// remove deletes the object under key, if any, and returns it.
func (s *threadSafeStore[T]) remove(key string) (old T, ok bool) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	old, ok = s.data[key]
	if !ok {
		return old, false
	}
	oldKnown := computeValues(&s.oldVals, s.defs, old) == nil

	s.mu.Lock()
	delete(s.data, key)
	for i, ix := range s.indices {
		if oldKnown {
			ix.remove(key, s.oldVals.of(i))
		} else {
			ix.removeEverywhere(key)
		}
	}
	s.mu.Unlock()

	s.oldVals.reset()
	return old, true
}

// get returns the object under key.
func (s *threadSafeStore[T]) get(key string) (T, bool) {
	s.mu.RLock()
	obj, ok := s.data[key]
	s.mu.RUnlock()
	return obj, ok
}

// getBytes is get for a key held in a byte slice; it does not allocate.
func (s *threadSafeStore[T]) getBytes(key []byte) (T, bool) {
	s.mu.RLock()
	obj, ok := s.data[string(key)]
	s.mu.RUnlock()
	return obj, ok
}

// list returns every object, in map order.
func (s *threadSafeStore[T]) list() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]T, 0, len(s.data))
	for _, obj := range s.data {
		out = append(out, obj)
	}
	return out
}

// listKeys returns every key, in map order.
func (s *threadSafeStore[T]) listKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.data))
	for key := range s.data {
		out = append(out, key)
	}
	return out
}

// len returns the number of objects.
func (s *threadSafeStore[T]) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.data)
}

// lastResourceVersion returns the resourceVersion of the last replace.
func (s *threadSafeStore[T]) lastResourceVersion() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.resourceVersion
}

// indexLocked returns the position of the index called name, or -1. The
// caller holds mu (or writeMu).
func (s *threadSafeStore[T]) indexLocked(name string) int {
	for i, d := range s.defs {
		if d.name == name {
			return i
		}
	}
	return -1
}

func unknownIndex(name string) error {
	return fmt.Errorf("%w: %q", ErrUnknownIndex, name)
}

// byIndex returns the objects indexed under value in the index name.
func (s *threadSafeStore[T]) byIndex(name, value string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := s.indexLocked(name)
	if i < 0 {
		return nil, unknownIndex(name)
	}
	return entryObjects(s.indices[i][value]), nil
}

// byNamespace is byIndex for the built-in namespace index, which is always
// first and cannot be missing.
func (s *threadSafeStore[T]) byNamespace(namespace string) []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return entryObjects(s.indices[0][namespace])
}

// entryObjects returns the objects of one index entry, in no particular
// order.
func entryObjects[T any](entry map[string]T) []T {
	out := make([]T, 0, len(entry))
	for _, obj := range entry {
		out = append(out, obj)
	}
	return out
}

// indexKeys returns the keys indexed under value in the index name.
func (s *threadSafeStore[T]) indexKeys(name, value string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := s.indexLocked(name)
	if i < 0 {
		return nil, unknownIndex(name)
	}
	set := s.indices[i][value]
	out := make([]string, 0, len(set))
	for key := range set {
		out = append(out, key)
	}
	return out, nil
}

// index returns the objects that share at least one value with obj in the
// index name. The index function runs outside the lock.
func (s *threadSafeStore[T]) index(name string, obj T) ([]T, error) {
	s.mu.RLock()
	defs := s.defs
	i := s.indexLocked(name)
	s.mu.RUnlock()
	if i < 0 {
		return nil, unknownIndex(name)
	}
	var vals indexValues
	if err := computeValues(&vals, defs[i:i+1], obj); err != nil {
		return nil, err
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	// defs only grows, so the index is still at position i.
	ix := s.indices[i]
	if len(vals.vals) == 1 {
		set := ix[vals.vals[0]]
		out := make([]T, 0, len(set))
		for _, o := range set {
			out = append(out, o)
		}
		return out, nil
	}
	seen := make(map[string]struct{})
	var out []T
	for _, v := range vals.vals {
		for key, o := range ix[v] {
			if _, dup := seen[key]; dup {
				continue
			}
			seen[key] = struct{}{}
			out = append(out, o)
		}
	}
	return out, nil
}

// listIndexFuncValues returns every value the index name holds objects
// under.
func (s *threadSafeStore[T]) listIndexFuncValues(name string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := s.indexLocked(name)
	if i < 0 {
		return nil, unknownIndex(name)
	}
	out := make([]string, 0, len(s.indices[i]))
	for v := range s.indices[i] {
		out = append(out, v)
	}
	return out, nil
}

// indexers returns the index functions by name, the built-in namespace
// index included.
func (s *threadSafeStore[T]) indexers() Indexers[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(Indexers[T], len(s.defs))
	for _, d := range s.defs {
		if d.fn == nil {
			out[d.name] = MetaNamespaceIndexFunc[T]
			continue
		}
		out[d.name] = d.fn
	}
	return out
}

// addIndexers adds indexes and indexes the objects already stored. Nothing
// changes if any name is taken or any function fails on a stored object.
func (s *threadSafeStore[T]) addIndexers(indexers Indexers[T]) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()

	names := make([]string, 0, len(indexers))
	for name := range indexers {
		names = append(names, name)
	}
	sort.Strings(names)
	added := make([]*indexDef[T], 0, len(names))
	for _, name := range names {
		switch {
		case name == "":
			return errors.New("add indexer: empty index name")
		case indexers[name] == nil:
			return fmt.Errorf("add indexer %q: nil IndexFunc", name)
		case s.indexLocked(name) >= 0:
			return fmt.Errorf("add indexer: %w: %q", ErrIndexExists, name)
		}
		added = append(added, &indexDef[T]{name: name, fn: indexers[name]})
	}
	if len(added) == 0 {
		return nil
	}

	// Build the new indexes from the stored objects without mu: writeMu
	// keeps data still, and readers go on using the old indexes.
	built, err := buildIndices(added, s.data)
	if err != nil {
		return fmt.Errorf("add indexer: %w", err)
	}
	defs := append(slices.Clip(s.defs), added...)
	indices := append(slices.Clip(s.indices), built...)

	s.mu.Lock()
	s.defs, s.indices = defs, indices
	s.mu.Unlock()
	return nil
}

// buildIndices computes the indexes defs over data.
func buildIndices[T meta.Object](defs []*indexDef[T], data map[string]T) ([]valueIndex[T], error) {
	out := make([]valueIndex[T], len(defs))
	for i := range out {
		out[i] = valueIndex[T]{}
	}
	var vals indexValues
	for key, obj := range data {
		if err := computeValues(&vals, defs, obj); err != nil {
			return nil, fmt.Errorf("object %q: %w", key, err)
		}
		for i, ix := range out {
			ix.add(key, obj, vals.of(i), nil)
		}
	}
	return out, nil
}

// staging is a new content for a threadSafeStore, built outside its locks
// and swapped in at commit.
type staging[T meta.Object] struct {
	s *threadSafeStore[T]
	// defs is the store's defs when staging began; commit builds any index
	// added since.
	defs    []*indexDef[T]
	data    map[string]T
	indices []valueIndex[T]
	// sizes[i] has the set sizes of index i when staging began: the new
	// sets are likely to be about as large.
	sizes    []map[string]int
	vals     indexValues
	prevVals indexValues
}

// beginStaging starts a new content with room for sizeHint objects (or as
// many as the store holds, if sizeHint is negative).
func (s *threadSafeStore[T]) beginStaging(sizeHint int) *staging[T] {
	s.mu.RLock()
	defs := s.defs
	if sizeHint < 0 {
		sizeHint = len(s.data)
	}
	sizes := make([]map[string]int, len(s.indices))
	for i, ix := range s.indices {
		sizes[i] = ix.sizes()
	}
	s.mu.RUnlock()
	st := &staging[T]{
		s:       s,
		defs:    defs,
		data:    make(map[string]T, sizeHint),
		indices: make([]valueIndex[T], len(defs)),
		sizes:   sizes,
	}
	for i := range st.indices {
		st.indices[i] = valueIndex[T]{}
	}
	return st
}

// add stages obj under key. On error nothing is staged.
func (st *staging[T]) add(key string, obj T) error {
	if err := computeValues(&st.vals, st.defs, obj); err != nil {
		return fmt.Errorf("object %q: %w", key, err)
	}
	if prev, ok := st.data[key]; ok {
		prevKnown := computeValues(&st.prevVals, st.defs, prev) == nil
		for i, ix := range st.indices {
			if prevKnown {
				ix.remove(key, st.prevVals.of(i))
			} else {
				ix.removeEverywhere(key)
			}
		}
	}
	st.data[key] = obj
	for i, ix := range st.indices {
		ix.add(key, obj, st.vals.of(i), st.sizes[i])
	}
	return nil
}

// commit swaps the staged content in, recording resourceVersion.
func (st *staging[T]) commit(resourceVersion string) error {
	s := st.s
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if extra := s.defs[len(st.defs):]; len(extra) > 0 {
		// Indexes were added while staging; index the staged objects too.
		built, err := buildIndices(extra, st.data)
		if err != nil {
			return err
		}
		st.indices = append(st.indices, built...)
	}
	s.mu.Lock()
	s.data, s.indices, s.resourceVersion = st.data, st.indices, resourceVersion
	s.mu.Unlock()
	st.data, st.indices = nil, nil
	return nil
}
