package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	out := flag.String("out", "", "the Go file to write (stdout when empty)")
	pkg := flag.String("package", "openapi", "the package of the generated file")
	flag.Parse()
	if err := run(flag.Args(), *out, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(inputs []string, out, pkg string) error {
	if len(inputs) == 0 {
		return errors.New("no input documents (give the captured /openapi/v3/... files)")
	}
	defs := map[string]*node{}
	from := map[string]string{}
	var sources []string
	for _, in := range inputs {
		doc, err := readDoc(in)
		if err != nil {
			return err
		}
		sources = append(sources, filepath.Base(in))
		for name, raw := range doc.Components.Schemas {
			n, err := normalize(raw)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", in, name, err)
			}
			if prev, ok := defs[name]; ok {
				// Shared definitions (DeleteOptions, WatchEvent...) list
				// the kinds of each group they serve: merge those.
				a, b := *prev, *n
				a.GVK, b.GVK = nil, nil
				if render(&a, 0) != render(&b, 0) {
					return fmt.Errorf("definition %s differs between %s and %s", name, from[name], in)
				}
				for _, g := range n.GVK {
					if !slices.Contains(prev.GVK, g) {
						prev.GVK = append(prev.GVK, g)
					}
				}
				continue
			}
			defs[name] = n
			from[name] = in
		}
	}
	src, err := emit(pkg, sources, defs)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(src)
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

type document struct {
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

func readDoc(path string) (document, error) {
	var doc document
	f, err := os.Open(path)
	if err != nil {
		return doc, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return doc, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return doc, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// node mirrors openapi.Schema.
type node struct {
	Ref, Type, Format     string
	OneOf                 []*node
	Props                 []prop
	Items, AddProps       *node
	ListType              string
	ListMapKeys           []string
	MapType               string
	PatchStrategy         string
	PatchMergeKey         string
	PreserveUnknownFields bool
	IntOrString           bool
	EmbeddedResource      bool
	DefaultEmpty          bool
	Default               string
	Required              []string
	GVK                   []gvk
}

type prop struct {
	name string
	n    *node
}

type gvk struct{ Group, Version, Kind string }

type rawSchema struct {
	Ref                   string                     `json:"$ref"`
	Type                  string                     `json:"type"`
	Format                string                     `json:"format"`
	AllOf                 []json.RawMessage          `json:"allOf"`
	OneOf                 []json.RawMessage          `json:"oneOf"`
	AnyOf                 []json.RawMessage          `json:"anyOf"`
	Properties            map[string]json.RawMessage `json:"properties"`
	Items                 json.RawMessage            `json:"items"`
	AdditionalProperties  json.RawMessage            `json:"additionalProperties"`
	Default               json.RawMessage            `json:"default"`
	Required              []string                   `json:"required"`
	ListType              string                     `json:"x-kubernetes-list-type"`
	ListMapKeys           []string                   `json:"x-kubernetes-list-map-keys"`
	MapType               string                     `json:"x-kubernetes-map-type"`
	PatchStrategy         string                     `json:"x-kubernetes-patch-strategy"`
	PatchMergeKey         string                     `json:"x-kubernetes-patch-merge-key"`
	PreserveUnknownFields bool                       `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString           bool                       `json:"x-kubernetes-int-or-string"`
	EmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource"`
	GVK                   []gvk                      `json:"x-kubernetes-group-version-kind"`
}

const refPrefix = "#/components/schemas/"

func normalize(raw json.RawMessage) (*node, error) {
	var r rawSchema
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	n := &node{
		Type: r.Type, Format: r.Format,
		ListType: r.ListType, ListMapKeys: r.ListMapKeys, MapType: r.MapType,
		PatchStrategy: r.PatchStrategy, PatchMergeKey: r.PatchMergeKey,
		PreserveUnknownFields: r.PreserveUnknownFields, IntOrString: r.IntOrString,
		EmbeddedResource: r.EmbeddedResource, GVK: r.GVK,
	}
	if r.Ref != "" {
		n.Ref = strings.TrimPrefix(r.Ref, refPrefix)
	}
	switch len(r.AllOf) {
	case 0:
	case 1:
		inner, err := normalize(r.AllOf[0])
		if err != nil {
			return nil, err
		}
		if inner.Ref == "" {
			return nil, errors.New("allOf holds something other than a reference")
		}
		n.Ref = inner.Ref
	default:
		return nil, fmt.Errorf("allOf with %d entries is not supported", len(r.AllOf))
	}
	alts := r.OneOf
	if len(alts) == 0 {
		alts = r.AnyOf
	}
	for _, a := range alts {
		an, err := normalize(a)
		if err != nil {
			return nil, err
		}
		n.OneOf = append(n.OneOf, an)
	}
	switch d := bytes.TrimSpace(r.Default); {
	case bytes.Equal(d, []byte("{}")):
		n.DefaultEmpty = true
	case len(d) > 0 && d[0] != '{' && d[0] != '[':
		var buf bytes.Buffer
		if err := json.Compact(&buf, d); err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		n.Default = buf.String()
	}
	n.Required = append([]string(nil), r.Required...)
	slices.Sort(n.Required)
	names := make([]string, 0, len(r.Properties))
	for k := range r.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		pn, err := normalize(r.Properties[k])
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", k, err)
		}
		n.Props = append(n.Props, prop{k, pn})
	}
	if len(r.Items) > 0 {
		in, err := normalize(r.Items)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		n.Items = in
	}
	if len(r.AdditionalProperties) > 0 && !bytes.Equal(bytes.TrimSpace(r.AdditionalProperties), []byte("false")) {
		if bytes.Equal(bytes.TrimSpace(r.AdditionalProperties), []byte("true")) {
			n.AddProps = &node{}
		} else {
			an, err := normalize(r.AdditionalProperties)
			if err != nil {
				return nil, fmt.Errorf("additionalProperties: %w", err)
			}
			n.AddProps = an
		}
	}
	return n, nil
}

// render writes n as a Go expression of type *Schema (with the leading &
// unless bare, for map elements).
func render(n *node, indent int) string {
	var b strings.Builder
	writeNode(&b, n, indent, false)
	return b.String()
}

func writeNode(b *strings.Builder, n *node, indent int, bare bool) {
	if !bare {
		b.WriteString("&Schema")
	}
	var fields []string
	str := func(name, v string) {
		if v != "" {
			fields = append(fields, name+": "+strconv.Quote(v))
		}
	}
	flag := func(name string, v bool) {
		if v {
			fields = append(fields, name+": true")
		}
	}
	strs := func(name string, v []string) {
		if len(v) > 0 {
			q := make([]string, len(v))
			for i, k := range v {
				q[i] = strconv.Quote(k)
			}
			fields = append(fields, name+": []string{"+strings.Join(q, ", ")+"}")
		}
	}
	str("Ref", n.Ref)
	str("Type", n.Type)
	str("Format", n.Format)
	str("ListType", n.ListType)
	strs("ListMapKeys", n.ListMapKeys)
	str("MapType", n.MapType)
	str("PatchStrategy", n.PatchStrategy)
	str("PatchMergeKey", n.PatchMergeKey)
	flag("PreserveUnknownFields", n.PreserveUnknownFields)
	flag("IntOrString", n.IntOrString)
	flag("EmbeddedResource", n.EmbeddedResource)
	flag("DefaultEmpty", n.DefaultEmpty)
	str("Default", n.Default)
	strs("Required", n.Required)
	if len(n.GVK) > 0 {
		var g []string
		for _, x := range n.GVK {
			g = append(g, fmt.Sprintf("{Group: %q, Version: %q, Kind: %q}", x.Group, x.Version, x.Kind))
		}
		fields = append(fields, "GVK: []GVK{"+strings.Join(g, ", ")+"}")
	}
	if n.Items != nil {
		fields = append(fields, "Items: "+render(n.Items, indent+1))
	}
	if n.AddProps != nil {
		fields = append(fields, "AdditionalProperties: "+render(n.AddProps, indent+1))
	}
	if len(n.OneOf) > 0 {
		var o []string
		for _, a := range n.OneOf {
			o = append(o, render(a, indent+1))
		}
		fields = append(fields, "OneOf: []*Schema{"+strings.Join(o, ", ")+"}")
	}
	multiline := len(n.Props) > 0
	if !multiline {
		b.WriteString("{" + strings.Join(fields, ", ") + "}")
		return
	}
	pad := strings.Repeat("\t", indent+1)
	b.WriteString("{\n")
	for _, f := range fields {
		b.WriteString(pad + f + ",\n")
	}
	b.WriteString(pad + "Properties: []Property{\n")
	for _, p := range n.Props {
		b.WriteString(pad + "\t{" + strconv.Quote(p.name) + ", " + render(p.n, indent+2) + "},\n")
	}
	b.WriteString(pad + "},\n")
	b.WriteString(strings.Repeat("\t", indent) + "}")
}

func emit(pkg string, sources []string, defs map[string]*node) ([]byte, error) {
	var b strings.Builder
	b.WriteString("// Code generated by internal/openapi/gen from the OpenAPI v3 documents of a real kube-apiserver (testdata/real). DO NOT EDIT.\n\n")
	b.WriteString("package " + pkg + "\n\n")
	b.WriteString("// builtinSources lists the documents the table was read from.\n")
	b.WriteString("var builtinSources = []string{\n")
	slices.Sort(sources)
	for _, s := range sources {
		b.WriteString("\t" + strconv.Quote(s) + ",\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// builtinSchemas holds every definition of the real server's documents.\n")
	b.WriteString("var builtinSchemas = map[string]*Schema{\n")
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		var nb strings.Builder
		writeNode(&nb, defs[name], 1, true)
		b.WriteString("\t" + strconv.Quote(name) + ": " + nb.String() + ",\n")
	}
	b.WriteString("}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("format generated code: %w", err)
	}
	return src, nil
}
