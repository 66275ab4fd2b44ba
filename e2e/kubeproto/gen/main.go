package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"
)

// servedGroupVersions are the group/versions of the fake server's
// discovery (e2e/testdata/real/discovery, captured from a real
// kube-apiserver v1.37.2), plus meta.k8s.io/v1 for the metadata-only
// kinds.
var servedGroupVersions = []string{
	"v1",
	"admissionregistration.k8s.io/v1",
	"apiextensions.k8s.io/v1",
	"apiregistration.k8s.io/v1",
	"apps/v1",
	"authentication.k8s.io/v1",
	"authorization.k8s.io/v1",
	"autoscaling/v1",
	"autoscaling/v2",
	"batch/v1",
	"certificates.k8s.io/v1",
	"coordination.k8s.io/v1",
	"discovery.k8s.io/v1",
	"events.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1",
	"meta.k8s.io/v1",
	"networking.k8s.io/v1",
	"node.k8s.io/v1",
	"policy/v1",
	"rbac.authorization.k8s.io/v1",
	"resource.k8s.io/v1",
	"scheduling.k8s.io/v1",
	"storage.k8s.io/v1",
	"storagemigration.k8s.io/v1",
}

func main() {
	out := flag.String("out", "", "the Go file to write (stdout when empty)")
	flag.Parse()
	src, err := generate()
	if err == nil && *out != "" {
		err = os.WriteFile(*out, src, 0o644)
	} else if err == nil {
		_, err = os.Stdout.Write(src)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// kindEntry is one (apiVersion, kind) and the Go type that carries it.
type kindEntry struct {
	apiVersion, kind string
	typ              reflect.Type
}

// kinds collects the protobuf-capable kinds of every served group/version
// from the schemes client-go, apiextensions and kube-aggregator register.
func kinds() ([]kindEntry, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		kubescheme.AddToScheme, apiextensionsscheme.AddToScheme,
		aggregatorscheme.AddToScheme, metav1.AddMetaToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"})
	var out []kindEntry
	for _, gvString := range servedGroupVersions {
		gv, err := schema.ParseGroupVersion(gvString)
		if err != nil {
			return nil, err
		}
		known := s.KnownTypes(gv)
		if len(known) == 0 {
			return nil, fmt.Errorf("no types registered for %s", gvString)
		}
		for kind, t := range known {
			if !isProtoMessage(t) {
				continue
			}
			out = append(out, kindEntry{gvString, kind, t})
		}
	}
	// Status and the other unversioned kinds are registered under "v1".
	for _, obj := range []runtime.Object{&metav1.Status{}} {
		t := reflect.TypeOf(obj).Elem()
		out = append(out, kindEntry{"v1", t.Name(), t})
	}
	slices.SortFunc(out, func(a, b kindEntry) int {
		return strings.Compare(a.apiVersion+" "+a.kind, b.apiVersion+" "+b.kind)
	})
	return slices.CompactFunc(out, func(a, b kindEntry) bool {
		return a.apiVersion == b.apiVersion && a.kind == b.kind
	}), nil
}

// protoMessage is what gogo-generated types implement.
type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

var protoMessageType = reflect.TypeFor[protoMessage]()

func isProtoMessage(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(protoMessageType)
}

// special maps the Go types with their own JSON form to the value kind
// the codec gives them.
var special = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():                                  "kTime",
	reflect.TypeFor[metav1.MicroTime]():                             "kMicroTime",
	reflect.TypeFor[metav1.Duration]():                              "kDuration",
	reflect.TypeFor[resource.Quantity]():                            "kQuantity",
	reflect.TypeFor[intstr.IntOrString]():                           "kIntOrString",
	reflect.TypeFor[runtime.RawExtension]():                         "kRawExtension",
	reflect.TypeFor[metav1.FieldsV1]():                              "kFieldsV1",
	reflect.TypeFor[apiextensionsv1.JSON]():                         "kJSON",
	reflect.TypeFor[apiextensionsv1.JSONSchemaPropsOrArray]():       "kSchemaOrArray",
	reflect.TypeFor[apiextensionsv1.JSONSchemaPropsOrBool]():        "kSchemaOrBool",
	reflect.TypeFor[apiextensionsv1.JSONSchemaPropsOrStringArray](): "kSchemaOrStrings",
}

// specialMessage names the message a special kind refers to, for those
// whose protobuf side is an ordinary message of the table.
var specialMessage = map[string]bool{
	"kSchemaOrArray": true, "kSchemaOrBool": true, "kSchemaOrStrings": true,
}

// field is one generated field row.
type field struct {
	json  string
	num   int
	kind  string
	flags []string
	msg   string
}

// generator accumulates messages by name.
type generator struct {
	messages map[string][]field
	order    []string
	names    map[reflect.Type]string
}

func generate() ([]byte, error) {
	ks, err := kinds()
	if err != nil {
		return nil, err
	}
	g := &generator{messages: map[string][]field{}, names: map[reflect.Type]string{}}
	var kindRows []string
	for _, k := range ks {
		name, err := g.message(k.typ)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", k.apiVersion, k.kind, err)
		}
		kindRows = append(kindRows, fmt.Sprintf("{%q, %q, %q},", k.apiVersion, k.kind, name))
	}
	for _, t := range []reflect.Type{reflect.TypeFor[metav1.WatchEvent]()} {
		if _, err := g.message(t); err != nil {
			return nil, err
		}
	}
	return g.render(kindRows)
}

// messageName is the table's name of a Go struct: its package path
// without the repository prefix, then the type name ("core/v1.Pod").
func messageName(t reflect.Type) string {
	p := t.PkgPath()
	for _, prefix := range []string{"k8s.io/api/", "k8s.io/apimachinery/pkg/apis/", "k8s.io/apimachinery/pkg/",
		"k8s.io/apiextensions-apiserver/pkg/apis/", "k8s.io/kube-aggregator/pkg/apis/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			p = rest
			break
		}
	}
	return p + "." + t.Name()
}

// message adds the message of struct type t (and every message it refers
// to) and returns its name.
func (g *generator) message(t reflect.Type) (string, error) {
	if name, ok := g.names[t]; ok {
		return name, nil
	}
	if t.Kind() != reflect.Struct {
		return "", fmt.Errorf("%s is not a struct", t)
	}
	name := messageName(t)
	g.names[t] = name
	g.order = append(g.order, name)
	fields, err := g.fields(t)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	g.messages[name] = fields
	return name, nil
}

// fields lists t's fields in Go declaration order, which is the order
// encoding/json writes them in.
func (g *generator) fields(t reflect.Type) ([]field, error) {
	var out []field
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		jsonTag := sf.Tag.Get("json")
		if jsonTag == "-" {
			if sf.Tag.Get("protobuf") != "" {
				return nil, fmt.Errorf("field %s: in protobuf but not in JSON", sf.Name)
			}
			continue
		}
		f, err := g.field(t, sf)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", sf.Name, err)
		}
		if f.json != "" {
			if seen[f.json] {
				return nil, fmt.Errorf("field %s: JSON name %q twice", sf.Name, f.json)
			}
			seen[f.json] = true
		}
		out = append(out, f)
	}
	return out, nil
}

// field maps one struct field.
func (g *generator) field(owner reflect.Type, sf reflect.StructField) (field, error) {
	jsonName, jsonOpts, _ := strings.Cut(sf.Tag.Get("json"), ",")
	var f field
	for _, opt := range strings.Split(jsonOpts, ",") {
		switch opt {
		case "omitempty":
			f.flags = append(f.flags, "fOmitEmpty")
		case "omitzero":
			f.flags = append(f.flags, "fOmitZero")
		case "inline", "":
		default:
			return f, fmt.Errorf("unknown json option %q", opt)
		}
	}
	if jsonName == "" && !sf.Anonymous {
		// Only the special types with their own JSON form (the
		// JSONSchemaPropsOr… unions) have these; the codec reads them
		// by number.
		if _, ok := special[owner]; !ok {
			return f, fmt.Errorf("no JSON name on a field that is not embedded")
		}
		jsonName = sf.Name
	}
	f.json = jsonName
	if sf.Anonymous && jsonName == "" {
		if sf.Type == reflect.TypeFor[metav1.TypeMeta]() {
			f.kind = "kTypeMeta"
			return f, nil
		}
		if sf.Type.Kind() != reflect.Struct {
			return f, fmt.Errorf("embedded non-struct %s", sf.Type)
		}
		f.flags = append(f.flags, "fInline")
	}
	ptag := sf.Tag.Get("protobuf")
	if ptag == "" {
		// Not in protobuf: after a protobuf round trip the field is
		// always its zero value, which the JSON side still prints.
		fmt.Fprintf(os.Stderr, "gen: note: %s has no protobuf tag\n", sf.Name)
	} else {
		num, err := protoNumber(ptag)
		if err != nil {
			return f, err
		}
		f.num = num
	}
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		f.flags = append(f.flags, "fPointer")
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && !isProtoMessage(t):
		f.flags = append(f.flags, "fRepeated")
		t = t.Elem()
		if t.Kind() == reflect.Pointer {
			return f, fmt.Errorf("slice of pointers %s", sf.Type)
		}
		if strings.Contains(ptag, ",packed") {
			f.flags = append(f.flags, "fPacked")
		}
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return f, fmt.Errorf("map key %s is not a string", t.Key())
		}
		f.flags = append(f.flags, "fMap")
		t = t.Elem()
		if t.Kind() == reflect.Pointer {
			return f, fmt.Errorf("map of pointers %s", sf.Type)
		}
	}
	kind, msg, err := g.valueKind(t)
	if err != nil {
		return f, err
	}
	f.kind, f.msg = kind, msg
	// The wire type follows the Go type, as the generated marshal code
	// does: a few tags disagree with it (DeleteOptions.propagationPolicy
	// says varint and is written as bytes), and the fixtures prove it.
	return f, nil
}

// valueKind maps a Go value type (after pointer, slice and map) to the
// codec's value kind and, for messages, the message name.
func (g *generator) valueKind(t reflect.Type) (string, string, error) {
	if k, ok := special[t]; ok {
		if specialMessage[k] {
			name, err := g.message(t)
			return k, name, err
		}
		return k, "", nil
	}
	if t.Implements(reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()) {
		return "", "", fmt.Errorf("%s has its own JSON form and no rule here", t)
	}
	switch t.Kind() {
	case reflect.String:
		return "kString", "", nil
	case reflect.Bool:
		return "kBool", "", nil
	case reflect.Int32:
		return "kInt32", "", nil
	case reflect.Int64:
		return "kInt64", "", nil
	case reflect.Float64:
		return "kFloat64", "", nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "kBytes", "", nil
		}
		if isProtoMessage(t) && t.Elem().Kind() == reflect.String {
			return "kStrings", "", nil
		}
	case reflect.Struct:
		name, err := g.message(t)
		return "kMessage", name, err
	}
	return "", "", fmt.Errorf("no mapping for %s (%s)", t, t.Kind())
}

// protoNumber reads the field number of a protobuf struct tag
// ("bytes,1,opt,name=metadata").
func protoNumber(tag string) (int, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		return 0, fmt.Errorf("short protobuf tag %q", tag)
	}
	var n int
	if _, err := fmt.Sscanf(parts[1], "%d", &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("bad field number in %q", tag)
	}
	return n, nil
}

// render writes the Go source of the table.
func (g *generator) render(kindRows []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by e2e/kubeproto/gen from k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver and k8s.io/kube-aggregator v0.37.2. DO NOT EDIT.\n\n")
	b.WriteString("package kubeproto\n\n")
	b.WriteString("// generatedKinds maps each served (apiVersion, kind) to its message.\n")
	b.WriteString("var generatedKinds = []kindDef{\n")
	for _, r := range kindRows {
		b.WriteString(r + "\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// generatedMessages holds every message, fields in Go declaration order.\n")
	b.WriteString("var generatedMessages = []messageDef{\n")
	names := slices.Clone(g.order)
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "{%q, []fieldDef{\n", name)
		for _, f := range g.messages[name] {
			flags := "0"
			if len(f.flags) > 0 {
				flags = strings.Join(f.flags, "|")
			}
			fmt.Fprintf(&b, "{%q, %d, %s, %s, %q},\n", f.json, f.num, f.kind, flags, f.msg)
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
