package differential

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// Known is a difference between the fake and the real server that is
// written down in docs/fidelity.md: accepted, or open (still to fix).
type Known struct {
	// Where and Path are regular expressions matched against the
	// Difference's fields (unanchored).
	Where, Path string
	// Why says where the difference is written down.
	Why string
}

// knownSet is the list of known differences with the record of which
// entries matched a difference and which tests were skipped, so that an
// entry no difference needs any more is reported as stale.
type knownSet struct {
	entries []Known
	where   []*regexp.Regexp
	path    []*regexp.Regexp

	// mu guards used, skipped and tests.
	mu      sync.Mutex
	used    []bool
	skipped []string
	tests   int
}

// newKnownSet compiles the entries; a bad expression is an error naming
// the entry.
func newKnownSet(entries []Known) (*knownSet, error) {
	k := &knownSet{entries: entries, used: make([]bool, len(entries))}
	for i, e := range entries {
		w, err := regexp.Compile(e.Where)
		if err != nil {
			return nil, fmt.Errorf("known difference %d (%s): Where: %w", i, e.Why, err)
		}
		p, err := regexp.Compile(e.Path)
		if err != nil {
			return nil, fmt.Errorf("known difference %d (%s): Path: %w", i, e.Why, err)
		}
		k.where, k.path = append(k.where, w), append(k.path, p)
	}
	return k, nil
}

// match returns the first entry that covers d and records that it was
// needed.
func (k *knownSet) match(d Difference) (Known, bool) {
	for i := range k.entries {
		if k.where[i].MatchString(d.Where) && k.path[i].MatchString(d.Path) {
			k.mu.Lock()
			k.used[i] = true
			k.mu.Unlock()
			return k.entries[i], true
		}
	}
	return Known{}, false
}

// skip records a test that did not run to its end, so that entries about
// it are not called stale.
func (k *knownSet) skip(test string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.skipped = append(k.skipped, test)
}

// run records a test that compared the servers to its end (or failed).
func (k *knownSet) run() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.tests++
}

// ran is how many tests run recorded.
func (k *knownSet) ran() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.tests
}

// stale lists the entries that matched no difference, leaving out those
// whose Where names a skipped test: they describe a difference that no
// longer occurs and must be removed (with their line in the docs).
func (k *knownSet) stale() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for i, e := range k.entries {
		if k.used[i] || slices.ContainsFunc(k.skipped, k.where[i].MatchString) {
			continue
		}
		out = append(out, fmt.Sprintf("{Where: %q, Path: %q} (%s)", e.Where, e.Path, e.Why))
	}
	return out
}

// staleError is the error for stale entries, nil when there are none.
func staleError(stale []string) error {
	if len(stale) == 0 {
		return nil
	}
	return fmt.Errorf("%d known difference(s) in known_test.go no longer occur: remove them and their entries in the docs:\n  %s",
		len(stale), strings.Join(stale, "\n  "))
}

func newName(prefix string) string { return target.NewName(prefix) }
