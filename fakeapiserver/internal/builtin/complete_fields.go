package builtin

import "github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"

// neverOmittedFields returns the zero members a definition always
// encodes beyond its required fields and its "default": {} structs
// (neverOmitted), and its timestamps that encode as null when zero
// (zeroTimes); both tables are generated from the Go types.
func neverOmittedFields(name string) ([]jsonv.Member, []string) {
	return neverOmitted[name], zeroTimes[name]
}

// zeroField is a member of a definition whose zero value the Go encoding
// omits (omittedZeros), with the JSON kind of its values.
type zeroField struct {
	key  string
	kind jsonv.Kind
}

// omittedZero reports whether v, the value of member key of definition
// name, is one the Go types do not encode: the zero value of a
// non-pointer scalar field with omitempty, or null, which decodes to it.
func omittedZero(name, key string, v jsonv.Value) bool {
	for _, f := range omittedZeros[name] {
		if f.key != key {
			continue
		}
		switch v.Kind {
		case jsonv.Null:
			return true
		case f.kind:
			return empty(&jsonv.Value{Kind: jsonv.Object, Obj: []jsonv.Member{{Key: key, Value: v}}}, key)
		}
		return false
	}
	return false
}
