package kubeproto

import (
	"fmt"
	"slices"
	"sync"
)

// valueKind is how one value is written in protobuf and in JSON.
type valueKind uint8

const (
	kString          valueKind = iota + 1 // string: bytes / JSON string
	kBytes                                // []byte: bytes / base64 JSON string
	kBool                                 // bool: varint / true, false
	kInt32                                // int32: varint / JSON number
	kInt64                                // int64: varint / JSON number
	kFloat64                              // float64: fixed64 / JSON number
	kMessage                              // a message of the table / JSON object
	kTypeMeta                             // inline TypeMeta: not in the message, kind and apiVersion from the envelope
	kTime                                 // metav1.Time: {seconds, nanos=0} / RFC 3339 seconds
	kMicroTime                            // metav1.MicroTime: {seconds, nanos} / RFC 3339 microseconds
	kDuration                             // metav1.Duration: {duration ns} / Go duration string
	kQuantity                             // resource.Quantity: {string} / canonical string
	kIntOrString                          // intstr.IntOrString: {type, intVal, strVal} / number or string
	kRawExtension                         // runtime.RawExtension: {raw} / the raw JSON
	kFieldsV1                             // metav1.FieldsV1: {raw} / the raw JSON
	kJSON                                 // apiextensions JSON: {raw} / the raw JSON
	kStrings                              // a named []string with its own message {items} / JSON array
	kSchemaOrArray                        // JSONSchemaPropsOrArray: object or array of schemas
	kSchemaOrBool                         // JSONSchemaPropsOrBool: boolean or schema
	kSchemaOrStrings                      // JSONSchemaPropsOrStringArray: schema or array of strings
)

// fieldFlags are a field's cardinality and JSON options.
type fieldFlags uint16

const (
	fOmitEmpty fieldFlags = 1 << iota // json omitempty
	fOmitZero                         // json omitzero
	fPointer                          // a Go pointer: written only when set (optional with presence)
	fRepeated                         // a Go slice: one protobuf field per element
	fMap                              // a Go map: repeated key/value entries in key order
	fInline                           // an embedded struct: its own message in protobuf, flattened in JSON
)

// kindDef binds an (apiVersion, kind) to the name of its message.
type kindDef struct {
	apiVersion, kind, message string
}

// fieldDef is one generated field row: JSON name, protobuf number (0 when
// the field is not in protobuf), value kind, flags, and the message name
// for kMessage and the schema unions.
type fieldDef struct {
	json  string
	num   int32
	kind  valueKind
	flags fieldFlags
	msg   string
}

// messageDef is one generated message: its name and fields in Go order.
type messageDef struct {
	name   string
	fields []fieldDef
}

// message is a resolved message of the table.
type message struct {
	name string
	// fields are in Go declaration order, the order JSON is written in.
	fields []field
	// byNum holds, for each field number, the index in fields + 1 (0:
	// unknown number).
	byNum []int16
	// encodeOrder lists field indexes by protobuf number, the order
	// protobuf is written in.
	encodeOrder []int16
	// byJSON maps a JSON name to a field index.
	byJSON map[string]int
}

// field is a resolved field.
type field struct {
	fieldDef
	msg *message
}

func (f *field) has(fl fieldFlags) bool { return f.flags&fl != 0 }

// registry is the resolved table, built on first use.
type registry struct {
	messages map[string]*message
	kinds    map[[2]string]*message
	// groups holds every apiVersion that has a kind.
	groups map[string]struct{}
}

var (
	registryOnce sync.Once
	theRegistry  *registry
	registryErr  error
)

// schema returns the resolved table.
func schema() (*registry, error) {
	registryOnce.Do(func() { theRegistry, registryErr = resolve(generatedMessages, generatedKinds) })
	return theRegistry, registryErr
}

// resolve links the generated rows into messages.
func resolve(defs []messageDef, kinds []kindDef) (*registry, error) {
	r := &registry{messages: make(map[string]*message, len(defs)), kinds: make(map[[2]string]*message, len(kinds)), groups: map[string]struct{}{}}
	for _, d := range defs {
		r.messages[d.name] = &message{name: d.name}
	}
	for _, d := range defs {
		m := r.messages[d.name]
		m.byJSON = make(map[string]int, len(d.fields))
		maxNum := int32(0)
		for i, fd := range d.fields {
			f := field{fieldDef: fd}
			if fd.msg != "" {
				if f.msg = r.messages[fd.msg]; f.msg == nil {
					return nil, fmt.Errorf("kubeproto: %s.%s refers to unknown message %s", d.name, fd.json, fd.msg)
				}
			}
			m.fields = append(m.fields, f)
			if fd.json != "" {
				m.byJSON[fd.json] = i
			}
			maxNum = max(maxNum, fd.num)
		}
		m.byNum = make([]int16, maxNum+1)
		for i, f := range m.fields {
			if f.num > 0 {
				m.byNum[f.num] = int16(i + 1)
				m.encodeOrder = append(m.encodeOrder, int16(i))
			}
		}
		slices.SortFunc(m.encodeOrder, func(a, b int16) int { return int(m.fields[a].num - m.fields[b].num) })
	}
	for _, k := range kinds {
		m := r.messages[k.message]
		if m == nil {
			return nil, fmt.Errorf("kubeproto: kind %s %s refers to unknown message %s", k.apiVersion, k.kind, k.message)
		}
		r.kinds[[2]string{k.apiVersion, k.kind}] = m
		r.groups[k.apiVersion] = struct{}{}
	}
	return r, nil
}

// fieldByNum returns the field with protobuf number n, or nil.
func (m *message) fieldByNum(n uint64) *field {
	if n >= uint64(len(m.byNum)) || m.byNum[n] == 0 {
		return nil
	}
	return &m.fields[m.byNum[n]-1]
}
