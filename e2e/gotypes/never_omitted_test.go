package gotypes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// neverOmittedTable is the fake server's table of never-omitted fields
// and zero timestamps.
const neverOmittedTable = "../../fakeapiserver/internal/builtin/zz_generated_never_omitted.go"

// encodedField is a field the encoding always writes, with the JSON of
// its Go type's zero value.
type encodedField struct {
	name, zero string
}

// neverOmittedTables are the two tables the fake server keeps of the
// fields the Go types always encode although the schema does not require
// them: zeros holds the fields other than timestamps, times the
// timestamps.
type neverOmittedTables struct {
	zeros map[string][]encodedField
	times map[string][]string
}

// timeTypes are the timestamps, whose zero value encodes as null.
var timeTypes = []reflect.Type{reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime]()}

// alwaysEncoded reports whether encoding/json writes field f whatever
// its value: without omitempty or omitzero, or with only omitempty on a
// struct (which omitempty never drops).
func alwaysEncoded(f jsonField) bool {
	switch {
	case f.omitzero:
		return false
	case f.omitempty:
		return f.typ.Kind() == reflect.Struct
	}
	return true
}

// zeroEncoding is the JSON encoding/json writes for the zero value of a
// field of type typ, as the field of an addressable struct (so methods
// on the pointer count).
func zeroEncoding(t *testing.T, typ reflect.Type) string {
	t.Helper()
	b, err := json.Marshal(reflect.New(typ).Interface())
	require.NoError(t, err, typ)
	return string(b)
}

// neverOmitted reads, from the Go types reachable from roots, the fields
// of every definition in defs that the schema lists but neither requires
// nor marks `"default": {}` (the fake server completes those from the
// schema) and that the encoding always writes.
func neverOmitted(t *testing.T, roots []reflect.Type, defs map[string]definition) neverOmittedTables {
	t.Helper()
	out := neverOmittedTables{zeros: map[string][]encodedField{}, times: map[string][]string{}}
	walk(roots, func(typ reflect.Type) {
		name := definitionName(typ)
		def, ok := defs[name]
		if !ok {
			return
		}
		for _, f := range fieldsOf(typ) {
			if !def.has(f.name) || def.required[f.name] || def.properties[f.name] || !alwaysEncoded(f) {
				continue
			}
			if slices.Contains(timeTypes, f.typ) {
				out.times[name] = append(out.times[name], f.name)
				continue
			}
			out.zeros[name] = append(out.zeros[name], encodedField{name: f.name, zero: zeroEncoding(t, f.typ)})
		}
	})
	return out
}

// jsonvLiteral writes the Go expression of the jsonv.Value the JSON
// text encodes, an object's members in their order.
func jsonvLiteral(t *testing.T, text string) string {
	t.Helper()
	text = strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(text, "{"):
		dec := json.NewDecoder(strings.NewReader(text))
		_, err := dec.Token()
		require.NoError(t, err, text)
		var out []string
		for dec.More() {
			key, err := dec.Token()
			require.NoError(t, err, text)
			var raw json.RawMessage
			require.NoError(t, dec.Decode(&raw), text)
			out = append(out, member(key.(string), jsonvLiteral(t, string(raw))))
		}
		if len(out) == 0 {
			return "jsonv.NewObject()"
		}
		return "jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{" + strings.Join(out, ", ") + "}}"
	case strings.HasPrefix(text, "["):
		var items []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(text), &items), text)
		out := make([]string, len(items))
		for i, item := range items {
			out[i] = jsonvLiteral(t, string(item))
		}
		return "jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{" + strings.Join(out, ", ") + "}}"
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), text)
	switch v := v.(type) {
	case nil:
		return "jsonv.Value{}"
	case bool:
		if !v {
			return "jsonv.Value{Kind: jsonv.Bool}"
		}
		return "jsonv.Value{Kind: jsonv.Bool, B: true}"
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return fmt.Sprintf("number(%d)", n)
		}
		return fmt.Sprintf("jsonv.Value{Kind: jsonv.Number, Str: %q}", string(v))
	case string:
		return fmt.Sprintf("jsonv.NewString(%q)", v)
	}
	t.Fatalf("unexpected JSON value %s", text)
	return ""
}

// member writes one jsonv.Member literal, leaving out a null value.
func member(key, value string) string {
	if value == "jsonv.Value{}" {
		return fmt.Sprintf("{Key: %q}", key)
	}
	return fmt.Sprintf("{Key: %q, Value: %s}", key, value)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// renderNeverOmitted writes the tables as the fake server's Go source.
func renderNeverOmitted(t *testing.T, tables neverOmittedTables) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`// Code generated by e2e/gotypes (go test ./gotypes -run TestNeverOmitted -update); DO NOT EDIT.

package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// neverOmitted lists, per definition, the fields other than timestamps
// that the Go types always encode although the schema neither requires
// them nor marks them "default": {}: fields without omitempty, and
// structs with it (omitempty never drops a struct), each with the
// encoding of its Go type's zero value. Read from the Kubernetes API's
// Go types by reflection.
var neverOmitted = map[string][]jsonv.Member{
`)
	for _, name := range sortedKeys(tables.zeros) {
		fields := make([]string, 0, len(tables.zeros[name]))
		for _, f := range tables.zeros[name] {
			fields = append(fields, member(f.name, jsonvLiteral(t, f.zero)))
		}
		fmt.Fprintf(&b, "\t%q: {%s},\n", name, strings.Join(fields, ", "))
	}
	b.WriteString(`}

// zeroTimes lists, per definition, the timestamp fields whose Go type is
// a metav1.Time or MicroTime value the schema does not require: without
// omitzero the encoding always writes them, a zero time as null. Read
// from the Kubernetes API's Go types by reflection.
var zeroTimes = map[string][]string{
`)
	for _, name := range sortedKeys(tables.times) {
		fields := make([]string, 0, len(tables.times[name]))
		for _, f := range tables.times[name] {
			fields = append(fields, strconv.Quote(f))
		}
		fmt.Fprintf(&b, "\t%q: {%s},\n", name, strings.Join(fields, ", "))
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	require.NoError(t, err, b.String())
	return src
}

// TestNeverOmitted checks the fake server's tables of never-omitted
// fields and zero timestamps against the Go types; -update writes them.
func TestNeverOmitted(t *testing.T) {
	tables := neverOmitted(t, servedTypes(t), definitions(t))
	require.NotEmpty(t, tables.zeros)
	require.NotEmpty(t, tables.times)
	// Facts the tables must hold, as a guard on the walk itself: a
	// Role's rules and a PriorityClass's value have no omitempty, a Pod
	// condition's lastProbeTime is a time value, an object's
	// creationTimestamp one with omitzero, and a NetworkPolicy's
	// podSelector a struct the schema marks "default": {}.
	assert.Contains(t, tables.zeros["io.k8s.api.rbac.v1.Role"], encodedField{"rules", "null"})
	assert.Contains(t, tables.zeros["io.k8s.api.scheduling.v1.PriorityClass"], encodedField{"value", "0"})
	assert.Contains(t, tables.times["io.k8s.api.core.v1.PodCondition"], "lastProbeTime")
	assert.NotContains(t, tables.times["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"], "creationTimestamp")
	assert.NotContains(t, tables.zeros, "io.k8s.api.networking.v1.NetworkPolicySpec")
	checkTable(t, neverOmittedTable, renderNeverOmitted(t, tables), "TestNeverOmitted")
}
