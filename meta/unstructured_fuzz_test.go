package meta_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// FuzzUnstructured checks that Unstructured (and PartialObjectMetadata,
// which shares its decoder) accepts only well-formed JSON objects, never
// loses a member outside metadata, agrees with PeekMeta, and that encoding
// is a fixed point: decoding the output and encoding again gives the same
// bytes.
func FuzzUnstructured(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"kind":"A","metadata":{"name":"a","labels":{"x":"y"},"other":[1]},"spec":{"n":9223372036854775807}}`,
		`{"metadata":{"creationTimestamp":null,"deletionTimestamp":"2025-01-01T00:00:00Z","deletionGracePeriodSeconds":30,"generation":2}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true}],"finalizers":["f"],"managedFields":[{"a":1}]}}`,
		` { "spec" : [ 1 , "\u00e9" ] , "m\u0065tadata" : { } } `, `{"a":1,"a":2}`, `[]`, `null`, `{"metadata":{"name":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Add(podJSON(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		var u meta.Unstructured
		err := u.UnmarshalJSON(data)
		var p meta.PartialObjectMetadata
		perr := p.UnmarshalJSON(data)
		if isJSONNull(data) {
			require.NoError(t, err)
			return
		}
		require.Equal(t, err == nil, perr == nil, "Unstructured and PartialObjectMetadata disagree on %q: %v / %v", data, err, perr)
		if err != nil {
			return
		}
		require.True(t, json.Valid(data), "accepted invalid JSON %q", data)
		require.Equal(t, u.TypeMeta, p.TypeMeta)
		require.Equal(t, u.ObjectMeta, p.ObjectMeta)

		out, err := u.MarshalJSON()
		require.NoError(t, err, "every decoded Unstructured encodes")
		require.True(t, json.Valid(out), "encoded invalid JSON %q from %q", out, data)

		// Members other than kind, apiVersion and metadata are unchanged.
		require.Equal(t, withoutMeta(t, data), withoutMeta(t, out), "from %q to %q", data, out)

		// The identity PeekMeta reads is preserved.
		in, err := meta.PeekMeta(data)
		require.NoError(t, err)
		again, err := meta.PeekMeta(out)
		require.NoError(t, err)
		require.Equal(t, in, again)

		// Encoding is a fixed point.
		var u2 meta.Unstructured
		require.NoError(t, u2.UnmarshalJSON(out), "re-decoding %q", out)
		out2, err := u2.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2))
	})
}

func isJSONNull(data []byte) bool { return string(bytes.TrimSpace(data)) == "null" }

// withoutMeta decodes an object generically and drops the members that
// Unstructured decodes and re-encodes itself.
func withoutMeta(t *testing.T, data []byte) map[string]any {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	require.NoError(t, d.Decode(&m))
	delete(m, "kind")
	delete(m, "apiVersion")
	delete(m, "metadata")
	return m
}
