package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Object is one version of one object as the store holds it. It is
// immutable once built: lists, watch events and snapshots share it,
// always through a pointer (it is not copied: it carries its cache of
// encodings).
//
// The JSON is kept without its kind and apiVersion (body starts at
// `"metadata":`), so the same bytes serve an object (`{"kind":…,
// "apiVersion":…,` + body), an item of a built-in list (`{` + body) and any
// served version of the resource.
type Object struct {
	Key        string
	Kind       string
	APIVersion string
	Meta       *meta.ObjectMeta
	// Body is `"metadata":{…},…}`; metaEnd is where the metadata object
	// ends inside it.
	Body    []byte
	MetaEnd int
	// Fields holds the resource's selectable field values (other than
	// metadata.name and metadata.namespace).
	Fields map[string]string
	RV     int64
	// lastEncoding is the encoding found or built most recently: a list
	// asks for the same encoding of every object, so most lookups end
	// here, reading nothing but the object. encodings caches this
	// version's other encodings (see Encoded).
	lastEncoding atomic.Pointer[versionEncoding]
	encodings    *versionEncodings
}

const metadataPrefix = `"metadata":`

// ObjectKey returns the storage key of an object: "namespace/name", or
// "name" for a cluster-scoped one.
func ObjectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Assemble encodes an object from its parts. restJSON holds the other
// top-level members, encoded as `,"key":value…` (see encodeRest).
func Assemble(kind, apiVersion string, m *meta.ObjectMeta, restJSON []byte, fields map[string]string) (*Object, error) {
	mj, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	body := make([]byte, 0, len(metadataPrefix)+len(mj)+len(restJSON)+1)
	body = append(body, metadataPrefix...)
	body = append(body, mj...)
	metaEnd := len(body)
	body = append(body, restJSON...)
	body = append(body, '}')
	rv, _ := strconv.ParseInt(m.ResourceVersion, 10, 64)
	return &Object{
		Key:        ObjectKey(m.Namespace, m.Name),
		Kind:       kind,
		APIVersion: apiVersion,
		Meta:       m,
		Body:       body,
		MetaEnd:    metaEnd,
		Fields:     fields,
		RV:         rv,
		encodings:  &versionEncodings{},
	}, nil
}

// AppendObject appends the full object, with kind and apiVersion (the
// stored apiVersion when apiVersion is empty).
func (o *Object) AppendObject(buf []byte, apiVersion string) []byte {
	if apiVersion == "" {
		apiVersion = o.APIVersion
	}
	buf = append(buf, `{"kind":`...)
	buf = jsonv.AppendString(buf, o.Kind)
	buf = append(buf, `,"apiVersion":`...)
	buf = jsonv.AppendString(buf, apiVersion)
	buf = append(buf, ',')
	return append(buf, o.Body...)
}

// appendItem appends the object as an item of a built-in list: without
// kind and apiVersion.
func (o *Object) appendItem(buf []byte) []byte {
	buf = append(buf, '{')
	return append(buf, o.Body...)
}

// metadataJSON returns the encoded metadata object.
func (o *Object) metadataJSON() []byte {
	return o.Body[len(metadataPrefix):o.MetaEnd]
}

// AppendPartial appends the object as a PartialObjectMetadata.
func (o *Object) AppendPartial(buf []byte) []byte {
	buf = append(buf, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`...)
	buf = append(buf, o.metadataJSON()...)
	return append(buf, '}')
}

// Document parses the full object for editing. The stored bytes were
// produced by this package, so parsing cannot fail short of a bug.
func (o *Object) Document() (jsonv.Value, error) {
	res, err := jsonv.Parse(o.AppendObject(nil, ""))
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("stored object %s: %w", o.Key, err)
	}
	return res.Value, nil
}

// WithResourceVersion returns a copy of o whose metadata carries rv (the
// last state of a deleted object, sent with the delete's RV).
func (o *Object) WithResourceVersion(rv int64) (*Object, error) {
	m := CloneMeta(o.Meta)
	m.ResourceVersion = strconv.FormatInt(rv, 10)
	mj, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	rest := o.Body[o.MetaEnd:]
	body := make([]byte, 0, len(metadataPrefix)+len(mj)+len(rest))
	body = append(body, metadataPrefix...)
	body = append(body, mj...)
	metaEnd := len(body)
	body = append(body, rest...)
	return o.withBody(m, body, metaEnd, rv), nil
}

// withBody returns a new version of o (same key, kind, apiVersion and
// selectable fields) with other metadata and bytes and its own, empty,
// encodings cache.
func (o *Object) withBody(m *meta.ObjectMeta, body []byte, metaEnd int, rv int64) *Object {
	return &Object{Key: o.Key, Kind: o.Kind, APIVersion: o.APIVersion, Meta: m, Body: body, MetaEnd: metaEnd,
		Fields: o.Fields, RV: rv, encodings: &versionEncodings{}}
}

// SameContent reports whether two versions hold the same object apart from
// their resourceVersion (a no-op update).
func SameContent(a, b *Object) bool {
	if a.Kind != b.Kind || a.APIVersion != b.APIVersion || !bytes.Equal(a.Body[a.MetaEnd:], b.Body[b.MetaEnd:]) {
		return false
	}
	ma, mb := *a.Meta, *b.Meta
	ma.ResourceVersion, mb.ResourceVersion = "", ""
	ja, err1 := json.Marshal(&ma)
	jb, err2 := json.Marshal(&mb)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// CloneMeta deep-copies metadata so a new version never shares maps or
// slices with an old one.
func CloneMeta(m *meta.ObjectMeta) *meta.ObjectMeta {
	c := *m
	if m.Labels != nil {
		c.Labels = make(map[string]string, len(m.Labels))
		for k, v := range m.Labels {
			c.Labels[k] = v
		}
	}
	if m.Annotations != nil {
		c.Annotations = make(map[string]string, len(m.Annotations))
		for k, v := range m.Annotations {
			c.Annotations[k] = v
		}
	}
	c.OwnerReferences = append([]meta.OwnerReference(nil), m.OwnerReferences...)
	if m.OwnerReferences == nil {
		c.OwnerReferences = nil
	}
	c.Finalizers = append([]string(nil), m.Finalizers...)
	if m.Finalizers == nil {
		c.Finalizers = nil
	}
	c.ManagedFields = slices.Clone(m.ManagedFields) // nil stays nil; entries are immutable values
	if m.DeletionTimestamp != nil {
		t := *m.DeletionTimestamp
		c.DeletionTimestamp = &t
	}
	if m.DeletionGracePeriodSeconds != nil {
		g := *m.DeletionGracePeriodSeconds
		c.DeletionGracePeriodSeconds = &g
	}
	return &c
}

// matchFields returns the value of a selectable field for field selectors.
func (o *Object) Field(name string) (string, bool) {
	switch name {
	case "metadata.name":
		return o.Meta.Name, true
	case "metadata.namespace":
		return o.Meta.Namespace, true
	}
	v, ok := o.Fields[name]
	return v, ok
}
