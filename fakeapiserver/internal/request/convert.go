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
