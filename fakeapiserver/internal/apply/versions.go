package apply

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// Converter gives obj, a whole object at the request's API version, as
// served at apiVersion, with that version's field structure. It reports
// false when the kind has no conversion to apiVersion (the same body
// serves every version); the write is then compared as sent.
type Converter func(obj jsonv.Value, apiVersion string) (jsonv.Value, Type, bool)

// changes is what one write did to the ownable fields of an object: the
// fields it added or modified, and those it removed.
type changes struct {
	changed, removed fieldSet
}

// diff compares two versions of an object (neither carrying
// managedFields) with field structure t.
func diff(before, after jsonv.Value, t Type, r *Request) changes {
	root := t.rootNode()
	lm, rm := root.materialize(before), root.materialize(after)
	c := newComparison()
	compare(&lm, &rm, root, "", c)
	return changes{changed: c.modified.union(c.added).filter(r.ownable), removed: c.removed.filter(r.ownable)}
}

// versionedChanges is one write's changes seen at each API version a
// managedFields entry was recorded at: an entry's fields are paths of its
// own version, so the server converts both versions of the object to it
// before comparing (an HPA manager at autoscaling/v1 owns
// f:targetCPUUtilizationPercentage, which a write at v2 changes through
// spec.metrics).
type versionedChanges struct {
	before, after jsonv.Value
	r             *Request
	byVersion     map[string]changes
}

// newVersionedChanges compares before and after, objects at r.APIVersion
// with field structure t (before is an empty object on create).
func newVersionedChanges(before, after jsonv.Value, t Type, r *Request) *versionedChanges {
	return &versionedChanges{before: before, after: after, r: r,
		byVersion: map[string]changes{r.APIVersion: diff(before, after, t, r)}}
}

// at returns the changes at apiVersion: compared there when r converts
// to it, otherwise as at the request's version.
func (v *versionedChanges) at(apiVersion string) changes {
	if c, ok := v.byVersion[apiVersion]; ok {
		return c
	}
	c := v.byVersion[v.r.APIVersion]
	if v.r.Convert != nil && apiVersion != "" {
		after, t, ok := v.r.Convert(v.after, apiVersion)
		before := v.before
		if ok && len(before.Obj) > 0 {
			before, _, ok = v.r.Convert(before, apiVersion)
		}
		if ok {
			c = diff(before, after, t, v.r)
		}
	}
	v.byVersion[apiVersion] = c
	return c
}
