package apply

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// entry is one manager's record in metadata.managedFields.
type entry struct {
	Manager, Operation, APIVersion, Subresource string
	// Time is when the manager last changed the object; nil when it never
	// did (an apply that set values already there).
	Time *time.Time
	Set  fieldSet
}

// key identifies the entry: updates are told apart by API version, so one
// manager writing through v1 and v2 has two entries; applies are not.
func (e *entry) key() string {
	return managerKey(e.Manager, e.Operation, e.APIVersion, e.Subresource)
}

func managerKey(manager, operation, apiVersion, subresource string) string {
	if operation != "Update" {
		apiVersion = ""
	}
	return strings.Join([]string{manager, operation, apiVersion, subresource}, "\x00")
}

// managedEntry is the wire form of an entry.
type managedEntry struct {
	Manager     string          `json:"manager,omitempty"`
	Operation   string          `json:"operation,omitempty"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Time        *string         `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType,omitempty"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

// decodeManaged reads metadata.managedFields. An empty or absent list
// gives no entries.
func decodeManaged(raw []byte) ([]*entry, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var wire []managedEntry
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, fmt.Errorf("decode managedFields: %w", err)
	}
	seen := map[string]bool{}
	var out []*entry
	for i, w := range wire {
		if w.Operation != "Apply" && w.Operation != "Update" {
			return nil, fmt.Errorf("managedFields[%d]: operation must be Apply or Update, not %q", i, w.Operation)
		}
		if w.FieldsType != "FieldsV1" {
			return nil, fmt.Errorf("managedFields[%d]: fieldsType must be FieldsV1, not %q", i, w.FieldsType)
		}
		set := fieldSet{}
		if len(w.FieldsV1) > 0 {
			var err error
			if set, err = decodeFieldsV1(w.FieldsV1); err != nil {
				return nil, fmt.Errorf("managedFields[%d].fieldsV1: %w", i, err)
			}
		}
		e := &entry{Manager: w.Manager, Operation: w.Operation, APIVersion: w.APIVersion, Subresource: w.Subresource, Set: set}
		if w.Time != nil {
			t, err := time.Parse(time.RFC3339, *w.Time)
			if err != nil {
				return nil, fmt.Errorf("managedFields[%d].time: %w", i, err)
			}
			e.Time = &t
		}
		if seen[e.key()] {
			return nil, fmt.Errorf("managedFields[%d]: duplicate entry for manager %q (%s)", i, e.Manager, e.Operation)
		}
		seen[e.key()] = true
		out = append(out, e)
	}
	return out, nil
}

// maxUpdateManagers is how many Update entries an object keeps; older
// ones are merged into an "ancient-changes" entry, as on the server.
const maxUpdateManagers = 10

// encodeManaged writes the entries in the server's order: applies before
// updates, then by time, manager, API version and subresource. Entries
// that own nothing are dropped; nil means no managedFields at all.
func encodeManaged(entries []*entry) json.RawMessage {
	entries = capUpdates(slices.DeleteFunc(slices.Clone(entries), func(e *entry) bool { return len(e.Set) == 0 }))
	if len(entries) == 0 {
		return nil
	}
	slices.SortStableFunc(entries, func(a, b *entry) int {
		if c := strings.Compare(a.Operation, b.Operation); c != 0 {
			return c
		}
		if c := unix(a.Time) - unix(b.Time); c != 0 {
			if c < 0 {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Manager, b.Manager); c != 0 {
			return c
		}
		if c := strings.Compare(a.APIVersion, b.APIVersion); c != 0 {
			return c
		}
		return strings.Compare(a.Subresource, b.Subresource)
	})
	wire := make([]managedEntry, len(entries))
	for i, e := range entries {
		w := managedEntry{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, FieldsType: "FieldsV1",
			FieldsV1: encodeFieldsV1(e.Set), Subresource: e.Subresource}
		if e.Time != nil {
			s := e.Time.UTC().Format(time.RFC3339)
			w.Time = &s
		}
		wire[i] = w
	}
	b, err := json.Marshal(wire)
	if err != nil {
		// Plain strings and already-valid JSON: this cannot fail.
		panic(err)
	}
	return b
}

func unix(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}

// capUpdates merges the oldest Update entries into "ancient-changes"
// entries (one per API version) until at most maxUpdateManagers remain.
func capUpdates(entries []*entry) []*entry {
	var updates []*entry
	for _, e := range entries {
		if e.Operation == "Update" {
			updates = append(updates, e)
		}
	}
	if len(updates) <= maxUpdateManagers {
		return entries
	}
	slices.SortStableFunc(updates, func(a, b *entry) int {
		if ua, ub := unix(a.Time), unix(b.Time); ua != ub {
			if ua < ub {
				return -1
			}
			return 1
		}
		return strings.Compare(a.key(), b.key())
	})
	buckets := map[string]*entry{}
	for _, e := range entries {
		if e.Operation == "Update" && e.Manager == ancientChanges && e.Subresource == "" {
			buckets[e.APIVersion] = e
		}
	}
	merged := map[*entry]bool{}
	count := len(updates)
	for _, e := range updates {
		if count <= maxUpdateManagers {
			break
		}
		if e.Manager == ancientChanges {
			continue
		}
		b := buckets[e.APIVersion]
		if b == nil {
			b = &entry{Manager: ancientChanges, Operation: "Update", APIVersion: e.APIVersion, Set: fieldSet{}}
			buckets[e.APIVersion] = b
			entries = append(entries, b)
			count++
		}
		b.Set = b.Set.union(e.Set)
		if b.Time == nil || (e.Time != nil && e.Time.After(*b.Time)) {
			b.Time = e.Time
		}
		merged[e] = true
		count--
	}
	return slices.DeleteFunc(entries, func(e *entry) bool { return merged[e] })
}

const ancientChanges = "ancient-changes"

// find returns the entry with key k.
func find(entries []*entry, k string) *entry {
	for _, e := range entries {
		if e.key() == k {
			return e
		}
	}
	return nil
}
