package apply

import (
	"encoding/json"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Update records an ordinary write (create, update, JSON, merge or
// strategic merge patch) in managedFields, as the server does for every
// write: the manager of r gains the fields the write added or changed,
// which every other manager loses, and fields the write removed leave
// every entry. live is the stored object (a null Value on create) and obj
// the object about to be stored, both at r.APIVersion; an entry recorded
// at another version loses what the write changed at that version
// (r.Convert). It returns obj's new managedFields (nil
// when nobody owns anything).
//
// The starting entries are those of obj when it carries any (a client may
// write managedFields directly, except through a subresource), none when
// r.Reset, else live's. Entries that cannot be read are dropped, as the
// server resets them. An update of an object whose starting entries are
// none records none.
func Update(live, obj jsonv.Value, t Type, r Request) json.RawMessage {
	var entries []*entry
	fromRequest := false
	if r.Subresource == "" {
		if r.Reset {
			fromRequest = true
		} else if es, err := decodeManaged(managedFieldsOf(obj)); err == nil && len(es) > 0 {
			entries, fromRequest = es, true
		}
	}
	if !fromRequest && live.Kind == jsonv.Object {
		entries, _ = decodeManaged(managedFieldsOf(live))
	}
	if live.Kind == jsonv.Object && len(entries) == 0 {
		// An object that holds no managedFields gets none from an
		// update: the server tracks its fields again from the next
		// apply, which records them under before-first-apply.
		return nil
	}
	before := jsonv.NewObject()
	if live.Kind == jsonv.Object {
		before = withManagedFields(live, nil)
	}
	vc := newVersionedChanges(before, withManagedFields(obj, nil), t, &r)
	for _, e := range entries {
		c := vc.at(e.APIVersion)
		e.Set = e.Set.minus(c.changed).minus(c.removed)
	}
	changed := vc.at(r.APIVersion).changed
	if len(changed) > 0 {
		key := managerKey(r.Manager, "Update", r.APIVersion, r.Subresource)
		mine := find(entries, key)
		if mine == nil {
			mine = &entry{Manager: r.Manager, Operation: "Update", APIVersion: r.APIVersion, Subresource: r.Subresource, Set: fieldSet{}}
			entries = append(entries, mine)
		}
		mine.Set = mine.Set.union(changed)
		now := r.Now.UTC().Truncate(time.Second)
		mine.Time = &now
	}
	return encodeManaged(entries)
}
