package table

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Column is one column definition of a Table (meta.k8s.io/v1
// TableColumnDefinition). Columns with Priority > 0 are shown by kubectl
// only with -o wide.
type Column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// IncludeObject is the includeObject parameter: what each row carries
// besides its cells.
type IncludeObject string

// The includeObject values.
const (
	// IncludeNone: rows carry no object.
	IncludeNone IncludeObject = "None"
	// IncludeMetadata: rows carry a PartialObjectMetadata (the default).
	IncludeMetadata IncludeObject = "Metadata"
	// IncludeObjectFull: rows carry the whole object.
	IncludeObjectFull IncludeObject = "Object"
)

// ParseIncludeObject reads the includeObject query parameter ("" means
// Metadata). Any other value is an error the server answers with 400,
// prefixed "Unable to convert to Table as requested: ".
func ParseIncludeObject(s string) (IncludeObject, error) {
	switch s {
	case "", string(IncludeMetadata):
		return IncludeMetadata, nil
	case string(IncludeNone), string(IncludeObjectFull):
		return IncludeObject(s), nil
	}
	return "", fmt.Errorf("includeObject: Invalid value: %q: must be 'Metadata', 'Object', 'None', or empty", s)
}

// Printer renders the objects of one resource as table rows. The zero
// Printer is the default table: Name and Created At. A Printer is
// immutable and safe for concurrent use.
type Printer struct {
	columns []Column
	cells   func(obj jsonv.Value, now time.Time) []any
}

// Columns returns the printer's column definitions.
func (p Printer) Columns() []Column {
	if p.cells == nil {
		return defaultColumns
	}
	return p.columns
}

// Cells returns one row's cells for obj: strings, integers, booleans or
// nil, one per column.
func (p Printer) Cells(obj jsonv.Value, now time.Time) []any {
	if p.cells == nil {
		return []any{name(obj), str(obj, "metadata", "creationTimestamp")}
	}
	return p.cells(obj, now)
}

var defaultColumns = []Column{
	{Name: "Name", Type: "string", Format: "name", Description: nameDescription},
	{Name: "Created At", Type: "date", Description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"},
}

const nameDescription = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"

// Options shape a rendered Table.
type Options struct {
	// Include says what rows carry (IncludeMetadata when empty).
	Include IncludeObject
	// APIVersion is the Table's: "meta.k8s.io/v1" (default) or
	// "meta.k8s.io/v1beta1", as the client asked.
	APIVersion string
	// NoColumns leaves columnDefinitions null: the watch events after the
	// first carry no columns.
	NoColumns bool
	// Now is the moment ages are computed from.
	Now time.Time
}

// Render returns a Table of objects. listMeta is the list's metadata
// (resourceVersion, continue, remainingItemCount), raw; nil gives {}. A
// single GET is a one-row Table with the object's resourceVersion, and
// each watch event a one-row Table (with NoColumns after the first).
func (p Printer) Render(objects []jsonv.Value, listMeta json.RawMessage, o Options) []byte {
	apiVersion := o.APIVersion
	if apiVersion == "" {
		apiVersion = "meta.k8s.io/v1"
	}
	if len(listMeta) == 0 {
		listMeta = json.RawMessage("{}")
	}
	var columns any
	if !o.NoColumns {
		columns = p.Columns()
	}
	type row struct {
		Cells  []any           `json:"cells"`
		Object json.RawMessage `json:"object"`
	}
	rows := make([]row, 0, len(objects))
	for _, obj := range objects {
		rows = append(rows, row{Cells: p.Cells(obj, o.Now), Object: rowObject(obj, o.Include, apiVersion)})
	}
	b, err := json.Marshal(struct {
		Kind       string          `json:"kind"`
		APIVersion string          `json:"apiVersion"`
		Metadata   json.RawMessage `json:"metadata"`
		Columns    any             `json:"columnDefinitions"`
		Rows       []row           `json:"rows"`
	}{"Table", apiVersion, listMeta, columns, rows})
	if err != nil {
		// Cells are strings, numbers, booleans and nil; objects are
		// valid JSON.
		panic(err)
	}
	return b
}

// rowObject is what a row carries for includeObject; a row's
// PartialObjectMetadata has the Table's own apiVersion.
func rowObject(obj jsonv.Value, include IncludeObject, apiVersion string) json.RawMessage {
	switch include {
	case IncludeNone:
		return json.RawMessage("null")
	case IncludeObjectFull:
		return jsonv.Marshal(obj)
	}
	md := jsonv.NewObject()
	if m := obj.Get("metadata"); m != nil {
		md = *m
	}
	out := jsonv.NewObject()
	out.Set("kind", jsonv.NewString("PartialObjectMetadata"))
	out.Set("apiVersion", jsonv.NewString(apiVersion))
	out.Set("metadata", md)
	return jsonv.Marshal(out)
}
