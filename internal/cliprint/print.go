package cliprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/meta"
)

// Resource is what the printer knows about the resource it prints.
type Resource struct {
	Group, Version string
	// Resource is the plural name ("deployments").
	Resource string
	// Kind is the kind of the objects ("Deployment").
	Kind       string
	Namespaced bool
	// Columns are a custom resource's additionalPrinterColumns. When nil,
	// a built-in kind gets kubectl's columns for it and anything else gets
	// NAME and AGE.
	Columns []Column
}

// APIVersion returns "apps/v1", or "v1" for the core group.
func (r Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// Options say how to print.
type Options struct {
	Format Format
	// WithNamespace adds the NAMESPACE column (kubectl's -A) for a
	// namespaced resource.
	WithNamespace bool
	// Single prints the one object itself rather than a List, for JSON
	// and YAML (kubectl get TYPE NAME).
	Single bool
	// Now is the time ages are measured at; zero means time.Now().
	Now time.Time
	// ShowManagedFields keeps metadata.managedFields in JSON and YAML;
	// kubectl leaves it out unless asked (--show-managed-fields).
	ShowManagedFields bool
}

// Print writes objs, in the order given, in opts.Format. Objects are not
// modified: the kind and apiVersion that list items lack on the wire are
// filled in on copies.
func Print(w io.Writer, res Resource, objs []*meta.Unstructured, opts Options) error {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	switch opts.Format {
	case Table, Wide:
		return printTable(w, res, objs, opts)
	case Name:
		for _, o := range objs {
			if _, err := fmt.Fprintln(w, NameOf(res, o.Name)); err != nil {
				return err
			}
		}
		return nil
	case JSON, YAML:
		doc, err := document(res, objs, opts.Single, opts.ShowManagedFields)
		if err != nil {
			return err
		}
		if opts.Format == YAML {
			out, err := yaml.JSONToYAML(doc)
			if err != nil {
				return fmt.Errorf("print yaml: %w", err)
			}
			_, err = w.Write(out)
			return err
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, doc, "", "    "); err != nil {
			return fmt.Errorf("print json: %w", err)
		}
		buf.WriteByte('\n')
		_, err = w.Write(buf.Bytes())
		return err
	}
	return fmt.Errorf("%w: %d", ErrUnknownFormat, int(opts.Format))
}

// NameOf returns "kind.group/name" in lower case, as -o name prints it:
// "pod/web-0", "deployment.apps/web".
func NameOf(res Resource, name string) string {
	kind := strings.ToLower(res.Kind)
	if kind == "" {
		kind = res.Resource
	}
	if res.Group != "" {
		kind += "." + res.Group
	}
	return kind + "/" + name
}

// listDocument is the List kubectl prints for several objects.
type listDocument struct {
	APIVersion string            `json:"apiVersion"`
	Items      []json.RawMessage `json:"items"`
	Kind       string            `json:"kind"`
	Metadata   struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// document encodes objs as one object (single) or a List, without their
// managedFields unless managedFields.
func document(res Resource, objs []*meta.Unstructured, single, managedFields bool) ([]byte, error) {
	items := make([]json.RawMessage, 0, len(objs))
	for _, o := range objs {
		o = WithType(res, o)
		if !managedFields && o.ManagedFields != nil {
			o = WithoutManagedFields(o)
		}
		b, err := o.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", meta.Key(o), err)
		}
		items = append(items, b)
	}
	if single && len(items) == 1 {
		return items[0], nil
	}
	return json.Marshal(listDocument{APIVersion: "v1", Kind: "List", Items: items})
}

// WithType returns o if it has its kind and apiVersion, or else a copy
// with them filled in from res: items of a list carry neither on the wire.
// o is never modified.
func WithType(res Resource, o *meta.Unstructured) *meta.Unstructured {
	if o.Kind != "" && o.APIVersion != "" {
		return o
	}
	c := o.DeepCopy()
	if c.Kind == "" {
		c.Kind = res.Kind
	}
	if c.APIVersion == "" {
		c.APIVersion = res.APIVersion()
	}
	return c
}

// WithoutManagedFields returns a copy of o without metadata.managedFields;
// o is not modified.
func WithoutManagedFields(o *meta.Unstructured) *meta.Unstructured {
	c := o.DeepCopy()
	c.ManagedFields = nil
	return c
}

// printTable writes the table: headers, then one row per object.
func printTable(w io.Writer, res Resource, objs []*meta.Unstructured, opts Options) error {
	t := NewTable(res, opts)
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	writeRow(tw, t.Headers())
	for _, o := range objs {
		writeRow(tw, t.Row(o))
	}
	return tw.Flush()
}

// writeRow writes cells separated by tabs; tabs and newlines inside a
// cell are replaced so they cannot break the table.
func writeRow(w io.Writer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(w, "\t")
		}
		io.WriteString(w, cellReplacer.Replace(c))
	}
	io.WriteString(w, "\n")
}

var cellReplacer = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// TableLayout computes the headers and rows of a table; Print uses it, and
// so can a caller that prints rows as they come.
type TableLayout struct {
	res     Resource
	opts    Options
	builtin *kindColumns
}

// NewTable returns the layout of res's table in opts (Table or Wide).
func NewTable(res Resource, opts Options) *TableLayout {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	t := &TableLayout{res: res, opts: opts}
	if res.Columns == nil {
		if k, ok := builtinColumns[res.Group+"/"+res.Kind]; ok {
			t.builtin = &k
		}
	}
	return t
}

func (t *TableLayout) wide() bool { return t.opts.Format == Wide }

func (t *TableLayout) namespaceColumn() bool { return t.opts.WithNamespace && t.res.Namespaced }

// Headers returns the column headers.
func (t *TableLayout) Headers() []string {
	var h []string
	if t.namespaceColumn() {
		h = append(h, "NAMESPACE")
	}
	h = append(h, "NAME")
	switch {
	case t.builtin != nil:
		h = append(h, t.builtin.headers...)
		if t.wide() {
			h = append(h, t.builtin.wide...)
		}
	case len(t.res.Columns) > 0:
		for _, c := range t.res.Columns {
			if c.Priority == 0 || t.wide() {
				h = append(h, strings.ToUpper(c.Name))
			}
		}
	default:
		h = append(h, "AGE")
	}
	return h
}

// Row returns the cells of one object, matching Headers.
func (t *TableLayout) Row(o *meta.Unstructured) []string {
	var cells []string
	if t.namespaceColumn() {
		cells = append(cells, o.Namespace)
	}
	cells = append(cells, o.Name)
	r := row{meta: &o.ObjectMeta, now: t.opts.Now}
	if t.builtin != nil || len(t.res.Columns) > 0 {
		doc, err := o.Object()
		if err != nil || doc == nil {
			doc = map[string]any{}
		}
		r.doc = doc
	}
	switch {
	case t.builtin != nil:
		c, wide := t.builtin.cells(r)
		cells = append(cells, c...)
		if t.wide() {
			cells = append(cells, wide...)
		}
	case len(t.res.Columns) > 0:
		for _, c := range t.res.Columns {
			if c.Priority == 0 || t.wide() {
				cells = append(cells, c.cell(r.doc, t.opts.Now))
			}
		}
	default:
		cells = append(cells, r.age())
	}
	return cells
}
