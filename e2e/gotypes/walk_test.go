package gotypes

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"
)

// capturedDocuments holds the real server's /openapi/v3 documents the
// fake server's schema table is generated from.
const capturedDocuments = "../../fakeapiserver/internal/openapi/testdata/real"

// servedTypes returns the Go types of every kind the schemes register,
// the roots of the walk.
func servedTypes(t *testing.T) []reflect.Type {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		kubescheme.AddToScheme, apiextensionsscheme.AddToScheme, aggregatorscheme.AddToScheme, metav1.AddMetaToScheme,
	} {
		require.NoError(t, add(s))
	}
	var out []reflect.Type
	for _, typ := range s.AllKnownTypes() {
		out = append(out, typ)
	}
	return out
}

// definition is what the captured documents say of one schema.
type definition struct {
	// properties maps each property name to whether its schema is
	// `"default": {}` (a Go struct field kube-openapi marks as never
	// omitted, which the fake server completes from the schema).
	properties map[string]bool
	// required holds the properties the schema lists as required.
	required map[string]bool
}

// has reports whether the schema lists property name.
func (d definition) has(name string) bool {
	_, ok := d.properties[name]
	return ok
}

// definitions returns the schemas the captured documents define, by
// name.
func definitions(t *testing.T) map[string]definition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(capturedDocuments, "v3_*.json.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string]definition{}
	for _, f := range files {
		var doc struct {
			Components struct {
				Schemas map[string]struct {
					Properties map[string]struct {
						Default json.RawMessage `json:"default"`
					} `json:"properties"`
					Required []string `json:"required"`
				} `json:"schemas"`
			} `json:"components"`
		}
		fh, err := os.Open(f)
		require.NoError(t, err)
		zr, err := gzip.NewReader(fh)
		require.NoError(t, err)
		require.NoError(t, json.NewDecoder(zr).Decode(&doc), f)
		require.NoError(t, fh.Close())
		for name, s := range doc.Components.Schemas {
			d, ok := out[name]
			if !ok {
				d = definition{properties: map[string]bool{}, required: map[string]bool{}}
				out[name] = d
			}
			for p, ps := range s.Properties {
				d.properties[p] = d.properties[p] || string(bytes.TrimSpace(ps.Default)) == "{}"
			}
			for _, r := range s.Required {
				d.required[r] = true
			}
		}
	}
	return out
}

// definitionName is the OpenAPI definition name of a named Go type: its
// package path with the domain reversed ("k8s.io/api/core/v1" becomes
// "io.k8s.api.core.v1"), then the type's name.
func definitionName(typ reflect.Type) string {
	path := typ.PkgPath()
	domain, rest, _ := strings.Cut(path, "/")
	labels := strings.Split(domain, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + typ.Name()
}

// jsonField is one member a struct type encodes.
type jsonField struct {
	name string
	typ  reflect.Type
	// omitempty and omitzero are the tag's options of those names.
	omitempty, omitzero bool
}

// marshaler is encoding/json's interface for a type that encodes itself.
var marshaler = reflect.TypeFor[json.Marshaler]()

// custom reports whether typ encodes itself (metav1.Time,
// resource.Quantity, intstr.IntOrString…): its fields say nothing about
// its encoding.
func custom(typ reflect.Type) bool {
	return typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler)
}

// fieldsOf lists the members struct type typ encodes, in order, with the
// fields of embedded structs without a name inlined as encoding/json
// does.
func fieldsOf(typ reflect.Type) []jsonField {
	var out []jsonField
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, fieldsOf(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		field := jsonField{name: name, typ: f.Type}
		for _, o := range strings.Split(opts, ",") {
			field.omitempty = field.omitempty || o == "omitempty"
			field.omitzero = field.omitzero || o == "omitzero"
		}
		out = append(out, field)
	}
	return out
}

// walk calls visit once for every named struct type reachable from
// roots through fields, pointers, slices, arrays and maps, skipping
// types that encode themselves.
func walk(roots []reflect.Type, visit func(reflect.Type)) {
	seen := map[reflect.Type]bool{}
	var visitType func(reflect.Type)
	visitType = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || custom(typ) {
			return
		}
		seen[typ] = true
		if typ.Name() != "" {
			visit(typ)
		}
		for _, f := range fieldsOf(typ) {
			visitType(f.typ)
		}
	}
	for _, r := range roots {
		visitType(r)
	}
}
