package fakeapiserver

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// managedFields bookkeeping for Update operations (create, update, patch):
// each manager's entry lists the fields it set, in the FieldsV1 format
// ({"f:data":{".":{},"f:a":{}}}). Without schemas, lists are atomic: a list
// is one field, not one per element as the real server's typed structures
// make it. Server-side apply is not here.

type managedFieldsEntry struct {
	Manager     string          `json:"manager,omitempty"`
	Operation   string          `json:"operation,omitempty"`
	APIVersion  string          `json:"apiVersion,omitempty"`
	Time        *meta.Time      `json:"time,omitempty"`
	FieldsType  string          `json:"fieldsType,omitempty"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

// fieldPaths maps a field path (components joined by \x00, each "f:name"
// or "." for the node itself) to the JSON of a leaf value ("" for ".").
type fieldPaths map[string]string

const pathSep = "\x00"

// ownedFields collects the paths of an object that a manager can own:
// everything but the identity and system metadata, and .status unless
// status is what the write is about (or the resource has no status
// subresource).
func ownedFields(m *meta.ObjectMeta, rest []jsonv.Member, statusOnly, hasStatus bool) fieldPaths {
	out := fieldPaths{}
	if !statusOnly {
		md := jsonv.NewObject()
		if m.GenerateName != "" {
			md.Set("generateName", jsonv.NewString(m.GenerateName))
		}
		for _, part := range []struct {
			key string
			v   any
			set bool
		}{
			{"labels", m.Labels, len(m.Labels) > 0},
			{"annotations", m.Annotations, len(m.Annotations) > 0},
			{"ownerReferences", m.OwnerReferences, len(m.OwnerReferences) > 0},
			{"finalizers", m.Finalizers, len(m.Finalizers) > 0},
		} {
			if !part.set {
				continue
			}
			b, err := json.Marshal(part.v)
			if err != nil {
				continue
			}
			if res, err := jsonv.Parse(b); err == nil {
				md.Set(part.key, res.Value)
			}
		}
		if len(md.Obj) > 0 {
			collectPaths(md, "f:metadata", out)
		}
	}
	for _, mem := range rest {
		isStatus := mem.Key == "status"
		if (statusOnly && !isStatus) || (!statusOnly && isStatus && hasStatus) {
			continue
		}
		collectPaths(mem.Value, "f:"+mem.Key, out)
	}
	return out
}

// collectPaths records v at path. Objects record their members, plus "."
// for the object itself, except at the top-level struct-like fields
// (metadata, spec, status), which typed objects never own as a whole.
// Without schemas that is a heuristic: maps and structs look alike.
func collectPaths(v jsonv.Value, path string, out fieldPaths) {
	if v.Kind == jsonv.Object && len(v.Obj) > 0 {
		switch path {
		case "f:metadata", "f:spec", "f:status":
		default:
			out[path+pathSep+"."] = ""
		}
		for _, m := range v.Obj {
			collectPaths(m.Value, path+pathSep+"f:"+m.Key, out)
		}
		return
	}
	out[path] = string(jsonv.Marshal(v))
}

// encodeFieldsV1 renders paths as the nested FieldsV1 object.
func encodeFieldsV1(paths fieldPaths) json.RawMessage {
	root := jsonv.NewObject()
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		node := &root
		for _, part := range strings.Split(k, pathSep) {
			next := node.Get(part)
			if next == nil {
				node.Set(part, jsonv.NewObject())
				next = node.Get(part)
			}
			node = next
		}
	}
	sortFieldsV1(&root)
	return jsonv.Marshal(root)
}

// sortFieldsV1 puts "." first and the rest in byte order, as the real
// server writes them.
func sortFieldsV1(v *jsonv.Value) {
	slices.SortFunc(v.Obj, func(a, b jsonv.Member) int {
		switch {
		case a.Key == b.Key:
			return 0
		case a.Key == ".":
			return -1
		case b.Key == ".":
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	for i := range v.Obj {
		sortFieldsV1(&v.Obj[i].Value)
	}
}

// decodeFieldsV1 turns a FieldsV1 object back into paths (values unknown).
func decodeFieldsV1(raw json.RawMessage) map[string]bool {
	out := map[string]bool{}
	res, err := jsonv.Parse(raw)
	if err != nil {
		return out
	}
	var walk func(v jsonv.Value, prefix string)
	walk = func(v jsonv.Value, prefix string) {
		for _, m := range v.Obj {
			p := m.Key
			if prefix != "" {
				p = prefix + pathSep + m.Key
			}
			if m.Value.Kind == jsonv.Object && len(m.Value.Obj) > 0 {
				walk(m.Value, p)
			} else {
				out[p] = true
			}
		}
	}
	walk(res.Value, "")
	return out
}

// updateManagedFields records that manager wrote the object: on create
// (old == nil) it owns every field it set; on update it gains the fields it
// changed, which every other manager loses, and fields that disappeared
// leave every entry. Entries left empty are dropped.
func updateManagedFields(old json.RawMessage, oldPaths, newPaths fieldPaths, manager, apiVersion, subresource string, now time.Time) json.RawMessage {
	var entries []managedFieldsEntry
	if len(old) > 0 {
		_ = json.Unmarshal(old, &entries)
	}
	changed := map[string]bool{}
	for p, v := range newPaths {
		if ov, ok := oldPaths[p]; !ok || ov != v {
			changed[p] = true
		}
	}
	removed := map[string]bool{}
	for p := range oldPaths {
		if _, ok := newPaths[p]; !ok {
			removed[p] = true
		}
	}
	t := meta.NewTime(now)
	mine := -1
	var kept []managedFieldsEntry
	for _, e := range entries {
		set := decodeFieldsV1(e.FieldsV1)
		isMine := e.Manager == manager && e.Operation == "Update" && e.APIVersion == apiVersion && e.Subresource == subresource
		for p := range set {
			if removed[p] || (!isMine && changed[p]) {
				delete(set, p)
			}
		}
		if isMine {
			for p := range changed {
				set[p] = true
			}
			e.Time = &t
		}
		if len(set) == 0 {
			continue
		}
		paths := fieldPaths{}
		for p := range set {
			paths[p] = ""
		}
		e.FieldsV1 = encodeFieldsV1(paths)
		if isMine {
			mine = len(kept)
		}
		kept = append(kept, e)
	}
	if mine < 0 && len(changed) > 0 {
		paths := fieldPaths{}
		for p := range changed {
			paths[p] = ""
		}
		kept = append(kept, managedFieldsEntry{
			Manager: manager, Operation: "Update", APIVersion: apiVersion, Time: &t,
			FieldsType: "FieldsV1", FieldsV1: encodeFieldsV1(paths), Subresource: subresource,
		})
	}
	if len(kept) == 0 {
		return nil
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return old
	}
	return b
}

// defaultManager derives the field manager from the User-Agent ("kubectl"
// from "kubectl/v1.32.4 (linux/amd64) …"), as the real server does.
func defaultManager(userAgent string) string {
	m, _, _ := strings.Cut(userAgent, "/")
	if len(m) > 128 {
		m = m[:128]
	}
	return m
}
