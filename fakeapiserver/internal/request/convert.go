package request

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// Kinds served at a version other than their storage version
// (builtin.Conversions): objects written there are converted before they
// are stored, and stored ones are converted when read there.

// AtVersion returns o as served at apiVersion: converted when the
// resource converts between the two versions, o otherwise (the same
// body under another apiVersion).
func AtVersion(o *storage.Object, apiVersion string) *storage.Object {
	if apiVersion == "" || apiVersion == o.APIVersion {
		return o
	}
	c, ok := builtin.Conversions[apiVersion+"/"+o.Kind]
	if !ok || c.StoredAPIVersion != o.APIVersion {
		return o
	}
	return o.Converted(apiVersion, c.FromStored)
}

// toStoredVersion converts a decoded object written at a converting
// version to its storage version, in place. It reports false, leaving in
// alone, when the object does not convert.
func toStoredVersion(in *Incoming) bool {
	c, ok := builtin.Conversions[in.APIVersion+"/"+in.Kind]
	if !ok {
		return false
	}
	full := jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{
		{Key: "kind", Value: jsonv.NewString(in.Kind)},
		{Key: "apiVersion", Value: jsonv.NewString(in.APIVersion)},
	}}
	metaJSON := Marshal(in.Meta)
	md, err := jsonv.Parse(metaJSON)
	if err != nil {
		return false
	}
	full.Obj = append(full.Obj, jsonv.Member{Key: "metadata", Value: md.Value})
	full.Obj = append(full.Obj, in.Rest...)
	out, err := c.ToStored(jsonv.Marshal(full))
	if err != nil {
		return false
	}
	m, rest, err := storage.SplitDocument(out)
	if err != nil {
		return false
	}
	in.Meta, in.Rest, in.APIVersion = m, rest, c.StoredAPIVersion
	return true
}

// StoredAPIVersion returns the apiVersion objects of kind written at
// apiVersion are stored at: the conversion's storage version, or
// apiVersion itself when the kind does not convert there.
func StoredAPIVersion(kind, apiVersion string) string {
	if c, ok := builtin.Conversions[apiVersion+"/"+kind]; ok {
		return c.StoredAPIVersion
	}
	return apiVersion
}

// ConvertDocument converts a whole object of kind (its JSON) from the
// served version from to the served version to, through the storage
// version. It reports false, returning nil, when the kind does not
// convert between the two (the same body serves both, or there is no
// conversion between them). From and to the same version, it returns
// obj.
func ConvertDocument(obj []byte, kind, from, to string) ([]byte, bool) {
	if from == to {
		return obj, true
	}
	stored := StoredAPIVersion(kind, from)
	if stored != from {
		out, err := builtin.Conversions[from+"/"+kind].ToStored(obj)
		if err != nil {
			return nil, false
		}
		obj = out
	}
	if to == stored {
		return obj, stored != from
	}
	c, ok := builtin.Conversions[to+"/"+kind]
	if !ok || c.StoredAPIVersion != stored {
		return nil, false
	}
	out, err := c.FromStored(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}
