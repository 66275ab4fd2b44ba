package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// stored is one version of one object as the store holds it. It is
// immutable once built: lists, watch events and snapshots share it.
//
// The JSON is kept without its kind and apiVersion (body starts at
// `"metadata":`), so the same bytes serve an object (`{"kind":…,
// "apiVersion":…,` + body), an item of a built-in list (`{` + body) and any
// served version of the resource.
type stored struct {
	key        string
	kind       string
	apiVersion string
	meta       *meta.ObjectMeta
	// body is `"metadata":{…},…}`; metaEnd is where the metadata object
	// ends inside it.
	body    []byte
	metaEnd int
	// fields holds the resource's selectable field values (other than
	// metadata.name and metadata.namespace).
	fields map[string]string
	rv     int64
}

const metadataPrefix = `"metadata":`

// objectKey returns the storage key of an object: "namespace/name", or
// "name" for a cluster-scoped one.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// assemble encodes an object from its parts. restJSON holds the other
// top-level members, encoded as `,"key":value…` (see encodeRest).
func assemble(kind, apiVersion string, m *meta.ObjectMeta, restJSON []byte, fields map[string]string) (*stored, error) {
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
	return &stored{
		key:        objectKey(m.Namespace, m.Name),
		kind:       kind,
		apiVersion: apiVersion,
		meta:       m,
		body:       body,
		metaEnd:    metaEnd,
		fields:     fields,
		rv:         rv,
	}, nil
}

// appendObject appends the full object, with kind and apiVersion (the
// stored apiVersion when apiVersion is empty).
func (o *stored) appendObject(buf []byte, apiVersion string) []byte {
	if apiVersion == "" {
		apiVersion = o.apiVersion
	}
	buf = append(buf, `{"kind":`...)
	buf = jsonv.AppendString(buf, o.kind)
	buf = append(buf, `,"apiVersion":`...)
	buf = jsonv.AppendString(buf, apiVersion)
	buf = append(buf, ',')
	return append(buf, o.body...)
}

// appendItem appends the object as an item of a built-in list: without
// kind and apiVersion.
func (o *stored) appendItem(buf []byte) []byte {
	buf = append(buf, '{')
	return append(buf, o.body...)
}

// metadataJSON returns the encoded metadata object.
func (o *stored) metadataJSON() []byte {
	return o.body[len(metadataPrefix):o.metaEnd]
}

// appendPartial appends the object as a PartialObjectMetadata.
func (o *stored) appendPartial(buf []byte) []byte {
	buf = append(buf, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`...)
	buf = append(buf, o.metadataJSON()...)
	return append(buf, '}')
}

// document parses the full object for editing. The stored bytes were
// produced by this package, so parsing cannot fail short of a bug.
func (o *stored) document() (jsonv.Value, error) {
	res, err := jsonv.Parse(o.appendObject(nil, ""))
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("stored object %s: %w", o.key, err)
	}
	return res.Value, nil
}

// withResourceVersion returns a copy of o whose metadata carries rv (the
// last state of a deleted object, sent with the delete's RV).
func (o *stored) withResourceVersion(rv int64) (*stored, error) {
	m := cloneMeta(o.meta)
	m.ResourceVersion = strconv.FormatInt(rv, 10)
	mj, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	rest := o.body[o.metaEnd:]
	body := make([]byte, 0, len(metadataPrefix)+len(mj)+len(rest))
	body = append(body, metadataPrefix...)
	body = append(body, mj...)
	metaEnd := len(body)
	body = append(body, rest...)
	c := *o
	c.meta, c.body, c.metaEnd, c.rv = m, body, metaEnd, rv
	return &c, nil
}

// sameContent reports whether two versions hold the same object apart from
// their resourceVersion (a no-op update).
func sameContent(a, b *stored) bool {
	if a.kind != b.kind || a.apiVersion != b.apiVersion || !bytes.Equal(a.body[a.metaEnd:], b.body[b.metaEnd:]) {
		return false
	}
	ma, mb := *a.meta, *b.meta
	ma.ResourceVersion, mb.ResourceVersion = "", ""
	ja, err1 := json.Marshal(&ma)
	jb, err2 := json.Marshal(&mb)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// cloneMeta deep-copies metadata so a new version never shares maps or
// slices with an old one.
func cloneMeta(m *meta.ObjectMeta) *meta.ObjectMeta {
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
func (o *stored) field(name string) (string, bool) {
	switch name {
	case "metadata.name":
		return o.meta.Name, true
	case "metadata.namespace":
		return o.meta.Namespace, true
	}
	v, ok := o.fields[name]
	return v, ok
}
