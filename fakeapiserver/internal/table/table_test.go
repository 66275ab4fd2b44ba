package table

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

type capture struct {
	Date  string `json:"date"`
	Table struct {
		Columns []Column `json:"columnDefinitions"`
		Rows    []struct {
			Cells  []json.RawMessage `json:"cells"`
			Object json.RawMessage   `json:"object"`
		} `json:"rows"`
	} `json:"table"`
}

func readGz(t *testing.T, path string) []byte {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// widgetColumns are the additionalPrinterColumns of the CRD the captures
// were made with.
var widgetColumns = []PrinterColumn{
	{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
	{Name: "Color", Type: "string", JSONPath: ".spec.colors[0]", Description: "first color"},
	{Name: "Ready", Type: "boolean", JSONPath: ".status.ready", Priority: 1},
	{Name: "Since", Type: "date", JSONPath: ".status.since"},
	{Name: "Ratio", Type: "number", JSONPath: ".spec.ratio", Format: "float"},
	{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
}

// TestMatchesRealServer renders the objects of the Tables a real
// kube-apiserver returned and compares columns and cells.
func TestMatchesRealServer(t *testing.T) {
	files, err := filepath.Glob("testdata/real/*.json.gz")
	require.NoError(t, err)
	checked := 0
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json.gz")
		if strings.HasPrefix(base, "variant_") {
			continue
		}
		var c capture
		require.NoError(t, json.Unmarshal(readGz(t, f), &c), f)
		group, resource, _ := strings.Cut(base, "_")
		if group == "core" {
			group = ""
		}
		var p Printer
		switch base {
		case "example.com_widgets":
			p = ForCustom(widgetColumns)
		case "example.com_gadgets":
			p = ForCustom(nil)
		default:
			p = For(group, resource)
			if p.cells == nil && !columnsEqual(c.Table.Columns, defaultColumns) {
				// A resource the real server prints its own way and this
				// package does not (yet): the default table.
				assert.NotEmpty(t, builtinColumns[group+"/"+resource], "%s: columns captured", base)
				continue
			}
		}
		now, err := http.ParseTime(c.Date)
		require.NoError(t, err)
		assert.Equal(t, c.Table.Columns, p.Columns(), "%s columns", base)
		for i, row := range c.Table.Rows {
			res, err := jsonv.Parse(row.Object)
			require.NoError(t, err)
			want, _ := json.Marshal(row.Cells)
			got0, _ := json.Marshal(p.Cells(res.Value, now))
			// The server rendered within a second of its Date header.
			for _, d := range []time.Duration{time.Second, -time.Second} {
				if got, _ := json.Marshal(p.Cells(res.Value, now.Add(d))); string(got) == string(want) {
					got0 = got
				}
			}
			assert.JSONEq(t, string(want), string(got0), "%s row %d (%s)", base, i, name(res.Value))
			checked++
		}
	}
	t.Logf("%d rows compared with the real server's", checked)
	assert.Greater(t, checked, 150, "rows compared")
}

func TestRenderShapes(t *testing.T) {
	obj := parse(t, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm1","namespace":"demo","resourceVersion":"7","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"app":"web"}},"data":{"a":"1"}}`)
	now := time.Date(2025, 1, 1, 0, 5, 0, 0, time.UTC)
	p := For("", "configmaps")

	var meta struct {
		Kind, APIVersion string
		Metadata         map[string]any
		Columns          []Column `json:"columnDefinitions"`
		Rows             []struct {
			Cells  []any
			Object map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(p.Render([]jsonv.Value{obj}, json.RawMessage(`{"resourceVersion":"9"}`), Options{Now: now}), &meta))
	assert.Equal(t, "Table", meta.Kind)
	assert.Equal(t, "meta.k8s.io/v1", meta.APIVersion)
	assert.Equal(t, map[string]any{"resourceVersion": "9"}, meta.Metadata)
	assert.Equal(t, []string{"Name", "Data", "Age"}, []string{meta.Columns[0].Name, meta.Columns[1].Name, meta.Columns[2].Name})
	assert.Equal(t, []any{"cm1", float64(1), "5m"}, meta.Rows[0].Cells)
	assert.Equal(t, "PartialObjectMetadata", meta.Rows[0].Object["kind"])
	assert.Equal(t, "meta.k8s.io/v1", meta.Rows[0].Object["apiVersion"])
	assert.Equal(t, "cm1", meta.Rows[0].Object["metadata"].(map[string]any)["name"])

	full := p.Render([]jsonv.Value{obj}, nil, Options{Include: IncludeObjectFull, Now: now, APIVersion: "meta.k8s.io/v1beta1"})
	assert.Contains(t, string(full), `"object":{"kind":"ConfigMap"`)
	assert.Contains(t, string(full), `"apiVersion":"meta.k8s.io/v1beta1"`)
	var beta struct {
		Rows []struct {
			Object map[string]any `json:"object"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(p.Render([]jsonv.Value{obj}, nil, Options{Now: now, APIVersion: "meta.k8s.io/v1beta1"}), &beta))
	assert.Equal(t, "meta.k8s.io/v1beta1", beta.Rows[0].Object["apiVersion"], "a v1beta1 Table's rows are v1beta1 PartialObjectMetadata")
	none := p.Render([]jsonv.Value{obj}, nil, Options{Include: IncludeNone, Now: now, NoColumns: true})
	assert.Contains(t, string(none), `"columnDefinitions":null`, "a watch event after the first carries no columns")
	assert.Contains(t, string(none), `"object":null`)
	assert.Contains(t, string(none), `"metadata":{}`)

	// The default table for a resource without its own printer.
	var d struct {
		Columns []Column `json:"columnDefinitions"`
		Rows    []struct{ Cells []any }
	}
	require.NoError(t, json.Unmarshal(For("rbac.authorization.k8s.io", "clusterroles").Render([]jsonv.Value{obj}, nil, Options{Now: now}), &d))
	assert.Equal(t, "Created At", d.Columns[1].Name)
	assert.Equal(t, []any{"cm1", "2025-01-01T00:00:00Z"}, d.Rows[0].Cells)
}

func TestParseIncludeObject(t *testing.T) {
	for in, want := range map[string]IncludeObject{"": IncludeMetadata, "Metadata": IncludeMetadata, "None": IncludeNone, "Object": IncludeObjectFull} {
		got, err := ParseIncludeObject(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	raw := readGz(t, "testdata/real/variant_cm_bad_include.json.gz")
	var st struct{ Message string }
	require.NoError(t, json.Unmarshal(raw, &st))
	_, err := ParseIncludeObject("Bogus")
	assert.Equal(t, st.Message, "Unable to convert to Table as requested: "+err.Error(), "the real server's 400 message")
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-5 * time.Second: "<invalid>", 0: "0s", 119 * time.Second: "119s", 3*time.Minute + 14*time.Second: "3m14s",
		5 * time.Minute: "5m", 17 * time.Minute: "17m", 5*time.Hour + 2*time.Minute: "5h2m", 11 * time.Hour: "11h",
		76 * time.Hour: "3d4h", 698 * 24 * time.Hour: "698d", (365*2 + 34) * 24 * time.Hour: "2y34d", 9 * 365 * 24 * time.Hour: "9y",
	} {
		assert.Equal(t, want, HumanDuration(d), "HumanDuration(%v)", d)
	}
}

func TestJSONPath(t *testing.T) {
	obj := parse(t, `{"spec":{"a.b":{"c":[{"d":1},{"d":2}]},"list":["x","y"]}}`)
	for path, want := range map[string]string{
		".spec['a.b'].c[1].d": "2", ".spec.list[0]": `"x"`, ".spec.list[-1]": `"y"`, "{.spec.list[1]}": `"y"`,
		".spec.missing": "", ".spec.list[9]": "", "spec": "", ".spec[": "",
	} {
		v := evalPath(obj, parseJSONPath(path))
		got := ""
		if v != nil {
			got = string(jsonv.Marshal(*v))
		}
		assert.Equal(t, want, got, "JSONPath %s", path)
	}
}

func parse(t *testing.T, s string) jsonv.Value {
	res, err := jsonv.Parse([]byte(s))
	require.NoError(t, err)
	return res.Value
}

func columnsEqual(a, b []Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzJSONPath feeds arbitrary additionalPrinterColumns paths (a CRD is
// network input) through the JSONPath subset: no panic, and a path either
// finds a value of the object or nothing.
func FuzzJSONPath(f *testing.F) {
	for _, p := range []string{".spec.size", ".spec.colors[0]", ".spec['a.b'].c[-1]", "{.x}", ".[", "$.a"} {
		f.Add(p)
	}
	obj, _ := jsonv.Parse([]byte(`{"spec":{"size":3,"colors":["red"],"a.b":{"c":[1,2]}}}`))
	f.Fuzz(func(t *testing.T, path string) {
		_ = evalPath(obj.Value, parseJSONPath(path))
		cells := ForCustom([]PrinterColumn{{Name: "X", Type: "string", JSONPath: path}}).Cells(obj.Value, time.Time{})
		if len(cells) != 2 {
			t.Fatalf("ForCustom(%q) gave %d cells, want 2", path, len(cells))
		}
	})
}
