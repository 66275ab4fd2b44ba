package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// EnvReport names a file that every scenario's recordings (the real
// side's null when only the fake cluster ran) are appended to as JSON
// lines, for writing docs/fidelity.md entries.
const EnvReport = "E2E_CLUSTER_REPORT"

// Difference is a key whose sequences differ between the clusters.
type Difference struct {
	// Scenario and Key name the sequence ("deployment", "replicasets").
	Scenario, Key string
	// Real and Fake are the two sequences; nil when a side never
	// recorded the key.
	Real, Fake []string
}

// String shows both sequences, one state a line.
func (d Difference) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n  real:\n", d.Scenario, d.Key)
	for _, s := range d.Real {
		fmt.Fprintf(&b, "    %s\n", s)
	}
	b.WriteString("  fake:\n")
	for _, s := range d.Fake {
		fmt.Fprintf(&b, "    %s\n", s)
	}
	return b.String()
}

// Transient is a state that a controller may or may not write on its
// way, depending on whether one of its syncs runs before the next change
// it waits for (a Deployment's Progressing=ReplicaSetUpdated when the
// new ReplicaSet's pods are all ready before the controller syncs again).
// The real control plane itself writes it in some runs and not in
// others, so two sequences that differ only by such states do not differ.
type Transient struct {
	// Key and State are regular expressions matched (unanchored)
	// against a sequence's key and each of its states.
	Key, State string
}

// transients are the states compare tolerates missing on either side
// (docs/fidelity.md, "Control-plane differential").
var transients = []Transient{
	{Key: `^deployment conditions$`, State: `Progressing=True/ReplicaSetUpdated`},
}

// withoutTransient returns seq without the states transients name for
// key, and without the repeats their removal leaves next to each other.
func withoutTransient(key string, seq []string) []string {
	var out []string
	var states []*regexp.Regexp
	for _, tr := range transients {
		if regexp.MustCompile(tr.Key).MatchString(key) {
			states = append(states, regexp.MustCompile(tr.State))
		}
	}
	for _, st := range seq {
		drop := slices.ContainsFunc(states, func(re *regexp.Regexp) bool { return re.MatchString(st) })
		if !drop && (len(out) == 0 || out[len(out)-1] != st) {
			out = append(out, st)
		}
	}
	return out
}

// compare returns a Difference for every key whose sequences are not
// equal, in key order; two that are equal but for transient states are
// equal.
func compare(scenario string, real, fake map[string][]string) []Difference {
	keys := make([]string, 0, len(real)+len(fake))
	for k := range real {
		keys = append(keys, k)
	}
	for k := range fake {
		if _, ok := real[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []Difference
	for _, k := range keys {
		if !slices.Equal(real[k], fake[k]) && !slices.Equal(withoutTransient(k, real[k]), withoutTransient(k, fake[k])) {
			out = append(out, Difference{Scenario: scenario, Key: k, Real: real[k], Fake: fake[k]})
		}
	}
	return out
}

// Known is a difference written down in docs/fidelity.md.
type Known struct {
	// Scenario and Key are regular expressions matched (unanchored)
	// against the Difference's.
	Scenario, Key string
	// Why says where it is written down.
	Why string
}

// knownSet is the known differences with the record of which were needed
// and which scenarios compared both clusters, so that an entry no
// difference needs any more is reported.
type knownSet struct {
	entries  []Known
	scenario []*regexp.Regexp
	key      []*regexp.Regexp

	// mu guards used and compared.
	mu       sync.Mutex
	used     []bool
	compared []string
}

func newKnownSet(entries []Known) *knownSet {
	k := &knownSet{entries: entries, used: make([]bool, len(entries))}
	for _, e := range entries {
		k.scenario = append(k.scenario, regexp.MustCompile(e.Scenario))
		k.key = append(k.key, regexp.MustCompile(e.Key))
	}
	return k
}

// match returns the first entry covering d and records that it was needed.
func (k *knownSet) match(d Difference) (Known, bool) {
	for i, e := range k.entries {
		if k.scenario[i].MatchString(d.Scenario) && k.key[i].MatchString(d.Key) {
			k.mu.Lock()
			k.used[i] = true
			k.mu.Unlock()
			return e, true
		}
	}
	return Known{}, false
}

// ran records a scenario that compared both clusters to its end.
func (k *knownSet) ran(scenario string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.compared = append(k.compared, scenario)
}

// stale lists the entries of scenarios that were compared but matched no
// difference.
func (k *knownSet) stale() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for i, e := range k.entries {
		if k.used[i] || !slices.ContainsFunc(k.compared, k.scenario[i].MatchString) {
			continue
		}
		out = append(out, fmt.Sprintf("{Scenario: %q, Key: %q} (%s)", e.Scenario, e.Key, e.Why))
	}
	return out
}

// appendReport appends one JSON line with both recordings to path.
func appendReport(path, scenario string, real, fake map[string][]string) error {
	line, err := json.Marshal(map[string]any{"scenario": scenario, "real": real, "fake": fake})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
