package table

import (
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// PrinterColumn is one additionalPrinterColumns entry of a
// CustomResourceDefinition version.
type PrinterColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int32  `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// ForCustom returns the printer of a custom resource: Name, then the
// CRD's additionalPrinterColumns; without any, Name and Age (the
// creation timestamp, as a date column). JSONPaths of the simple forms
// .a.b, .a[0].b and .a['x.y'] are evaluated; a path that finds nothing
// gives an empty cell (nil).
func ForCustom(columns []PrinterColumn) Printer {
	if len(columns) == 0 {
		columns = []PrinterColumn{{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
			Description: defaultColumns[1].Description}}
	}
	defs := []Column{{Name: "Name", Type: "string", Format: "name", Description: nameDescription}}
	paths := make([][]step, len(columns))
	for i, c := range columns {
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		if c.Name == "Age" && c.JSONPath == ".metadata.creationTimestamp" && c.Description == defaultColumns[1].Description {
			desc = c.Description
		}
		defs = append(defs, Column{Name: c.Name, Type: c.Type, Format: c.Format, Description: desc, Priority: c.Priority})
		paths[i] = parseJSONPath(c.JSONPath)
	}
	return Printer{columns: defs, cells: func(o jsonv.Value, now time.Time) []any {
		cells := []any{name(o)}
		for i, c := range columns {
			v := evalPath(o, paths[i])
			cells = append(cells, customCell(v, c.Type, now))
		}
		return cells
	}}
}

func customCell(v *jsonv.Value, typ string, now time.Time) any {
	if v == nil || v.Kind == jsonv.Null {
		return nil
	}
	switch typ {
	case "date":
		if v.Kind == jsonv.String {
			return age(v.Str, now)
		}
	case "integer":
		if v.Kind == jsonv.Number {
			if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
				return n
			}
		}
	case "number":
		if v.Kind == jsonv.Number {
			if f, err := strconv.ParseFloat(v.Str, 64); err == nil {
				return f
			}
		}
	case "boolean":
		if v.Kind == jsonv.Bool {
			return v.B
		}
	}
	if v.Kind == jsonv.String {
		return v.Str
	}
	return string(jsonv.Marshal(*v))
}

// step is one element of a JSONPath: a member name or an array index.
type step struct {
	name  string
	index int
	isIdx bool
}

// parseJSONPath reads the JSONPath forms CRD columns use: .a.b, .a[0],
// .a['b.c'] and .a["b"]; anything else yields a path that finds nothing.
func parseJSONPath(p string) []step {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(p, "{"), "}"), "$")
	var out []step
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			if end == 0 {
				return []step{{name: "\x00"}}
			}
			out = append(out, step{name: p[:end]})
			p = p[end:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return []step{{name: "\x00"}}
			}
			inner := p[1:end]
			p = p[end+1:]
			if n, err := strconv.Atoi(inner); err == nil {
				out = append(out, step{index: n, isIdx: true})
			} else if len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0] {
				out = append(out, step{name: inner[1 : len(inner)-1]})
			} else {
				return []step{{name: "\x00"}}
			}
		default:
			return []step{{name: "\x00"}}
		}
	}
	return out
}

func evalPath(v jsonv.Value, path []step) *jsonv.Value {
	cur := &v
	for _, s := range path {
		if s.isIdx {
			if cur.Kind != jsonv.Array {
				return nil
			}
			i := s.index
			if i < 0 {
				i += len(cur.Arr)
			}
			if i < 0 || i >= len(cur.Arr) {
				return nil
			}
			cur = &cur.Arr[i]
			continue
		}
		if cur = cur.Get(s.name); cur == nil {
			return nil
		}
	}
	return cur
}
