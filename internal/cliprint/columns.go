package cliprint

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// Column is one of a custom resource's additionalPrinterColumns: a header,
// the path of the value in the object, and how to render it.
type Column struct {
	// Name is the header ("Replicas"); tables print it in upper case.
	Name string
	// Type is "integer", "number", "string", "boolean" or "date" (an age).
	Type string
	// JSONPath is the value's path in the object (".spec.replicas").
	JSONPath string
	// Priority 0 columns are always shown; higher ones only with -o wide.
	Priority int64

	path *JSONPath
}

// NewColumn returns a Column with its path parsed; an unparsable path is a
// *PathError.
func NewColumn(name, typ, jsonPath string, priority int64) (Column, error) {
	p, err := ParseJSONPath(jsonPath)
	if err != nil {
		return Column{}, fmt.Errorf("column %q: %w", name, err)
	}
	return Column{Name: name, Type: typ, JSONPath: jsonPath, Priority: priority, path: p}, nil
}

// crdPrinterColumns is the part of a CustomResourceDefinition that holds
// its printer columns.
type crdPrinterColumns struct {
	Spec struct {
		Versions []struct {
			Name                     string `json:"name"`
			AdditionalPrinterColumns []struct {
				Name     string `json:"name"`
				Type     string `json:"type"`
				JSONPath string `json:"jsonPath"`
				Priority int64  `json:"priority"`
			} `json:"additionalPrinterColumns"`
		} `json:"versions"`
	} `json:"spec"`
}

// ColumnsFromCRD reads the additionalPrinterColumns of one version of a
// CustomResourceDefinition. It returns the columns it could parse and an
// error naming each one it could not (or saying the CRD does not decode);
// no columns and no error means the version has none, and a table shows
// NAME and AGE.
func ColumnsFromCRD(crd *meta.Unstructured, version string) ([]Column, error) {
	var doc crdPrinterColumns
	if err := crd.UnmarshalContent(&doc); err != nil {
		return nil, fmt.Errorf("printer columns of %s: %w", crd.Name, err)
	}
	var cols []Column
	var errs []error
	for _, v := range doc.Spec.Versions {
		if v.Name != version {
			continue
		}
		for _, c := range v.AdditionalPrinterColumns {
			col, err := NewColumn(c.Name, c.Type, c.JSONPath, c.Priority)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			cols = append(cols, col)
		}
	}
	if len(errs) > 0 {
		return cols, fmt.Errorf("printer columns of %s: %w", crd.Name, errors.Join(errs...))
	}
	return cols, nil
}

// cell evaluates the column on a decoded object.
func (c Column) cell(doc any, now time.Time) string {
	if c.path == nil {
		return "<none>"
	}
	vals := c.path.Find(doc)
	if len(vals) == 0 {
		return "<none>"
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = c.render(v, now)
	}
	return strings.Join(parts, ",")
}

// render formats one value by the column's type.
func (c Column) render(v any, now time.Time) string {
	if c.Type == "date" {
		if s, ok := v.(string); ok {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				return Age(t, now)
			}
		}
	}
	return scalar(v)
}

// scalar renders a decoded JSON value as a table cell: strings as they
// are, numbers and booleans in their JSON form, null as <none>, objects
// and arrays as compact JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "<none>"
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "<invalid>"
	}
	return string(b)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
