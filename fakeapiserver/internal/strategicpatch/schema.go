package strategicpatch

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// Schema tells a strategic merge patch how the lists and maps of one kind
// merge. Implementations must be safe for concurrent use.
type Schema interface {
	// Lookup returns the patch metadata of the field at path. path names
	// fields from the object's root; list items add nothing to it, so the
	// ports of a pod's containers are at
	// ["spec", "containers", "ports"]. A field the schema does not know
	// gets the zero PatchMeta (its lists are replaced).
	Lookup(path []string) PatchMeta
}

// Strategy is how the patch's value for a field combines with the
// original's.
type Strategy uint8

const (
	// Default: maps merge key by key, lists are replaced whole.
	Default Strategy = iota
	// Merge: lists merge, objects matched by their merge key, primitives
	// as a set (x-kubernetes-patch-strategy: merge).
	Merge
	// Replace: the patch's value replaces the original's whole, maps too
	// (x-kubernetes-patch-strategy: replace).
	Replace
)

// String names the strategy as the API's extension does ("" for Default).
func (s Strategy) String() string {
	switch s {
	case Merge:
		return "merge"
	case Replace:
		return "replace"
	}
	return ""
}

// PatchMeta is what a strategic merge patch needs to know about a field.
type PatchMeta struct {
	Strategy Strategy
	// MergeKey identifies an item of a merged list of objects
	// (x-kubernetes-patch-merge-key).
	MergeKey string
	// RetainKeys records that clients send $retainKeys for this field (a
	// union such as a volume's source). The server honours $retainKeys
	// wherever it appears, so this is informational.
	RetainKeys bool
}

// NoSchema is the Schema of a kind nothing is known about: every list is
// replaced whole, as in a JSON merge patch, while the directives still
// apply.
var NoSchema Schema = noSchema{}

type noSchema struct{}

func (noSchema) Lookup([]string) PatchMeta { return PatchMeta{} }

// ForKind returns the Schema of a kind described by defs (for the
// built-in kinds, openapi.Builtin()), or false when defs does not declare
// the kind. It returns a Schema that walks defs on each lookup.
func ForKind(defs *openapi.Definitions, gvk openapi.GVK) (Schema, bool) {
	_, root, ok := defs.ForKind(gvk)
	if !ok {
		return nil, false
	}
	return &definitionSchema{defs: defs, root: root}, true
}

type definitionSchema struct {
	defs *openapi.Definitions
	root *openapi.Schema
}

func (d *definitionSchema) Lookup(path []string) PatchMeta {
	cur := d.root
	var field *openapi.Schema
	for i, name := range path {
		field = d.defs.Field(cur, name)
		if field == nil {
			return PatchMeta{}
		}
		if i == len(path)-1 {
			break
		}
		if field.Type == "array" {
			cur = d.defs.Elem(field)
		} else {
			cur = field
		}
	}
	if field == nil {
		return PatchMeta{}
	}
	return MetaOf(field)
}

// MetaOf reads the patch extensions of one field's schema.
func MetaOf(field *openapi.Schema) PatchMeta {
	var m PatchMeta
	for _, s := range strings.Split(field.PatchStrategy, ",") {
		switch strings.TrimSpace(s) {
		case "merge":
			m.Strategy = Merge
		case "replace":
			m.Strategy = Replace
		case "retainKeys":
			m.RetainKeys = true
		}
	}
	m.MergeKey = field.PatchMergeKey
	return m
}
