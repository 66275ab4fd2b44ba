package storage

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// versionEncodings caches other versionEncodings of one object version (the protobuf
// message of a list item, say), so that each is computed once per
// version however many lists and watchers ask for it. Storage does not
// know the versionEncodings: callers name them and say how to build them.
type versionEncodings struct {
	// mu guards entries.
	mu      sync.Mutex
	entries []*versionEncoding
	// convMu guards converted, the object at other served versions
	// (Converted); apart from mu, as a conversion runs inside Encoded's
	// builds.
	convMu    sync.Mutex
	converted []*Object
}

type versionEncoding struct {
	key  string
	data []byte
}

// Encoded returns the encoding key of o, building it with build on first
// use. An object made without Assemble (a test's literal) caches nothing.
func (o *Object) Encoded(key string, build func() []byte) []byte {
	if o.encodings == nil {
		return build()
	}
	if x := o.lastEncoding.Load(); x != nil && x.key == key {
		return x.data
	}
	e := o.encodings
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.entries {
		if x.key == key {
			o.lastEncoding.Store(x)
			return x.data
		}
	}
	x := &versionEncoding{key, build()}
	e.entries = append(e.entries, x)
	o.lastEncoding.Store(x)
	return x.data
}

// Converted returns o as served at another version, converted by conv
// from its full JSON once per object version and kept; o itself when
// the conversion fails.
func (o *Object) Converted(apiVersion string, conv func([]byte) ([]byte, error)) *Object {
	if o.encodings == nil {
		return o.convert(apiVersion, conv)
	}
	e := o.encodings
	e.convMu.Lock()
	defer e.convMu.Unlock()
	for _, c := range e.converted {
		if c.APIVersion == apiVersion {
			return c
		}
	}
	c := o.convert(apiVersion, conv)
	if c != o {
		e.converted = append(e.converted, c)
	}
	return c
}

func (o *Object) convert(apiVersion string, conv func([]byte) ([]byte, error)) *Object {
	data, err := conv(o.AppendObject(nil, ""))
	if err != nil {
		return o
	}
	m, rest, err := SplitDocument(data)
	if err != nil {
		return o
	}
	c, err := Assemble(o.Kind, apiVersion, m, EncodeRest(rest), o.Fields)
	if err != nil {
		return o
	}
	return c
}

// SplitDocument parses a full object's JSON into its metadata and its
// other top-level members (kind and apiVersion dropped).
func SplitDocument(data []byte) (*meta.ObjectMeta, []jsonv.Member, error) {
	doc, err := jsonv.Parse(data)
	if err != nil {
		return nil, nil, err
	}
	if doc.Value.Kind != jsonv.Object {
		return nil, nil, fmt.Errorf("not an object: %v", doc.Value.Kind)
	}
	m := &meta.ObjectMeta{}
	var rest []jsonv.Member
	for _, mem := range doc.Value.Obj {
		switch mem.Key {
		case "kind", "apiVersion":
		case "metadata":
			if err := json.Unmarshal(jsonv.Marshal(mem.Value), m); err != nil {
				return nil, nil, err
			}
		default:
			rest = append(rest, mem)
		}
	}
	return m, rest, nil
}
