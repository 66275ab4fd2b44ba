package reviewpb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// magic starts every Kubernetes protobuf body: "k8s" and a zero byte, then
// a runtime.Unknown envelope.
var magic = []byte("k8s\x00")

// ErrUnsupportedKind is wrapped when the envelope names a kind this
// package does not read.
var ErrUnsupportedKind = errors.New("unsupported kind")

// kindOf describes how a value is converted.
type kindOf int

const (
	str kindOf = iota
	boolean
	message
	stringList
)

// field is one entry of a message's field table.
type field struct {
	name string
	kind kindOf
	sub  map[int]field
}

var resourceAttributes = map[int]field{
	1: {name: "namespace"},
	2: {name: "verb"},
	3: {name: "group"},
	4: {name: "version"},
	5: {name: "resource"},
	6: {name: "subresource"},
	7: {name: "name"},
}

var nonResourceAttributes = map[int]field{
	1: {name: "path"},
	2: {name: "verb"},
}

// tables holds the known kinds by apiVersion and kind. Metadata (field 1)
// and status (field 3) are not read: a review's metadata carries nothing
// the server uses and its status is the server's answer.
var tables = map[[2]string]map[int]field{
	{"authorization.k8s.io/v1", "SelfSubjectAccessReview"}: {
		2: {name: "spec", kind: message, sub: map[int]field{
			1: {name: "resourceAttributes", kind: message, sub: resourceAttributes},
			2: {name: "nonResourceAttributes", kind: message, sub: nonResourceAttributes},
		}},
	},
	{"authorization.k8s.io/v1", "SubjectAccessReview"}: {
		2: {name: "spec", kind: message, sub: map[int]field{
			1: {name: "resourceAttributes", kind: message, sub: resourceAttributes},
			2: {name: "nonResourceAttributes", kind: message, sub: nonResourceAttributes},
			3: {name: "user"},
			4: {name: "groups", kind: stringList},
			6: {name: "uid"},
		}},
	},
	{"authorization.k8s.io/v1", "SelfSubjectRulesReview"}: {
		2: {name: "spec", kind: message, sub: map[int]field{1: {name: "namespace"}}},
	},
	{"authentication.k8s.io/v1", "SelfSubjectReview"}: {},
}

// Supports reports whether Decode reads bodies of this kind.
func Supports(apiVersion, kind string) bool {
	_, ok := tables[[2]string{apiVersion, kind}]
	return ok
}

// Decode converts a Kubernetes protobuf body (magic, envelope, message) of
// one of the supported review kinds into its JSON object, with apiVersion
// and kind first. Fields it does not know are skipped, as a protobuf
// reader does; bytes that are not protobuf, or a kind it does not read,
// are errors (wrapping ErrMalformed or ErrUnsupportedKind) naming what was
// wrong.
func Decode(data []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(data, magic)
	if !ok {
		return nil, fmt.Errorf("%w: the body does not start with the Kubernetes protobuf prefix \"k8s\\x00\"", ErrMalformed)
	}
	env, err := fields(rest)
	if err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	var apiVersion, kind string
	var raw []byte
	for _, f := range env {
		switch {
		case f.num == 1 && f.typ == wireBytes:
			tm, err := fields(f.bytes)
			if err != nil {
				return nil, fmt.Errorf("envelope typeMeta: %w", err)
			}
			for _, t := range tm {
				if t.typ != wireBytes {
					continue
				}
				switch t.num {
				case 1:
					apiVersion = string(t.bytes)
				case 2:
					kind = string(t.bytes)
				}
			}
		case f.num == 2 && f.typ == wireBytes:
			raw = f.bytes
		case f.num == 3 && f.typ == wireBytes && len(f.bytes) > 0:
			return nil, fmt.Errorf("%w: content encoding %q is not supported", ErrMalformed, f.bytes)
		}
	}
	table, ok := tables[[2]string{apiVersion, kind}]
	if !ok {
		return nil, fmt.Errorf("%w: %q in %q (this server reads protobuf only for the review kinds; send JSON)", ErrUnsupportedKind, kind, apiVersion)
	}
	obj, err := convert(raw, table, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, `{"apiVersion":%s,"kind":%s,"metadata":{}`, quote(apiVersion), quote(kind))
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if len(body) > 2 {
		out.WriteByte(',')
		out.Write(body[1 : len(body)-1])
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// maxDepth bounds nesting; the known tables are three levels deep.
const maxDepth = 8

// convert turns a message into a map by its field table.
func convert(b []byte, table map[int]field, depth int) (map[string]any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrMalformed, maxDepth)
	}
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, f := range fs {
		spec, ok := table[f.num]
		if !ok {
			continue
		}
		switch spec.kind {
		case boolean:
			if f.typ != wireVarint {
				return nil, fmt.Errorf("%w: %s: wire type %d, want a varint", ErrMalformed, spec.name, f.typ)
			}
			out[spec.name] = f.varint != 0
			continue
		}
		if f.typ != wireBytes {
			return nil, fmt.Errorf("%w: %s: wire type %d, want length-delimited", ErrMalformed, spec.name, f.typ)
		}
		switch spec.kind {
		case str, stringList:
			if !utf8.Valid(f.bytes) {
				return nil, fmt.Errorf("%w: %s: not valid UTF-8", ErrMalformed, spec.name)
			}
			if spec.kind == str {
				out[spec.name] = string(f.bytes)
				continue
			}
			list, _ := out[spec.name].([]string)
			out[spec.name] = append(list, string(f.bytes))
		case message:
			sub, err := convert(f.bytes, spec.sub, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", spec.name, err)
			}
			out[spec.name] = sub
		}
	}
	return out, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
