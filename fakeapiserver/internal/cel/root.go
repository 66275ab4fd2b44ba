package cel

import "github.com/kubecache/kubecache/fakeapiserver/internal/structural"

// The most bytes of a name, and of a generateName (the generated suffix
// takes at least one).
const (
	nameMaxLength         = 253
	generateNameMaxLength = nameMaxLength - 1
)

// withIdentity is the root schema as rules see it: apiVersion, kind and
// a metadata of name and generateName only, whatever the schema declares
// of them (their maxLength kept where it is shorter), as the real server
// declares the root of every resource.
func withIdentity(s *structural.Schema) *structural.Schema {
	var declared *structural.Schema
	if s.Properties != nil {
		declared = s.Properties["metadata"]
	}
	str := &structural.Schema{Type: "string"}
	md := (&structural.Schema{Type: "object"}).WithProperties(map[string]*structural.Schema{
		"name":         cappedString(declared, "name", nameMaxLength),
		"generateName": cappedString(declared, "generateName", generateNameMaxLength),
	})
	return s.WithProperties(map[string]*structural.Schema{"apiVersion": str, "kind": str, "metadata": md})
}

// cappedString is a string of at most limit bytes, or of the declared
// field's maxLength when that is shorter.
func cappedString(parent *structural.Schema, field string, limit int64) *structural.Schema {
	if parent != nil {
		if f := parent.Properties[field]; f != nil && f.MaxLength != nil {
			limit = min(limit, *f.MaxLength)
		}
	}
	return &structural.Schema{Type: "string", MaxLength: &limit}
}
