package meta_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// FuzzObjectMetaMatchesEncodingJSON checks the hand-written metadata
// decoder against encoding/json decoding the same declaration, on every
// input where the two are meant to agree: well-formed JSON without
// repeated keys (encoding/json merges repeated objects) and without keys
// that match a field name only when case is ignored (encoding/json
// accepts those; the API server and kubecache do not).
func FuzzObjectMetaMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"b","uid":"u","resourceVersion":"1","generation":2,` +
			`"creationTimestamp":"2025-01-01T00:00:00Z","deletionTimestamp":"2025-01-02T00:00:00+01:00","deletionGracePeriodSeconds":30,` +
			`"labels":{"a":"b","c":null},"annotations":{},"finalizers":["f",null],"managedFields":[ {"x" : 1}, null, {"manager":"m","operation":"Update","apiVersion":"v1","time":"2025-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{ "f:a" : {} },"subresource":"status"}, {"fieldsV1":null,"time":null} ],` +
			`"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true,"blockOwnerDeletion":null},null]},"spec":{}}`,
		`{"metadata":{"generation":-0,"labels":null,"ownerReferences":[],"finalizers":[]}}`,
		`{"metadata":{"generation":1e2}}`, `{"metadata":{"creationTimestamp":""}}`, `{"metadata":null}`, `{}`,
		`{"metadata":{"managedFields":null,"deletionGracePeriodSeconds":null,"deletionTimestamp":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Add(podJSON(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !comparable(data) {
			return
		}
		var ours meta.PartialObjectMetadata
		ourErr := ours.UnmarshalJSON(data)
		var theirs plainPartial
		theirErr := json.Unmarshal(data, &theirs)
		if isJSONNull(data) {
			return
		}
		require.Equal(t, theirErr == nil, ourErr == nil, "on %q: encoding/json says %v, kubecache says %v", data, theirErr, ourErr)
		if ourErr != nil {
			return
		}
		normalize(&theirs.ObjectMeta)
		normalize(&ours.ObjectMeta)
		require.Equal(t, theirs.TypeMeta, ours.TypeMeta, "on %q", data)
		require.Equal(t, theirs.ObjectMeta, ours.ObjectMeta, "on %q", data)
	})
}

// normalize maps the representations the two decoders legitimately choose
// differently onto one: a zero deletionTimestamp is no deletionTimestamp,
func normalize(m *meta.ObjectMeta) {
	if m.DeletionTimestamp != nil && m.DeletionTimestamp.IsZero() {
		m.DeletionTimestamp = nil
	}
}

// fieldNames are the JSON names of TypeMeta, ObjectMeta, OwnerReference and
// ManagedFieldsEntry.
var fieldNames = []string{"kind", "apiVersion", "metadata", "name", "generateName", "namespace", "uid",
	"resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
	"labels", "annotations", "ownerReferences", "finalizers", "managedFields", "controller", "blockOwnerDeletion",
	"manager", "operation", "time", "fieldsType", "fieldsV1", "subresource"}

// comparable reports whether data has no repeated keys in any object and
// no key that equals a field name only when case is ignored.
func comparable(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		inKey  bool // the next token in this object is a key
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.inKey {
			if delim, ok := tok.(json.Delim); ok && delim == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			key := tok.(string)
			if top.keys[key] {
				return false
			}
			top.keys[key] = true
			for _, name := range fieldNames {
				if key != name && (strings.EqualFold(key, name) || !isASCII(key)) {
					return false
				}
			}
			top.inKey = false
			continue
		}
		if top != nil && top.object {
			top.inKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, inKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
