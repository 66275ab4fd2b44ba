package meta

import (
	"unicode/utf8"
	"unsafe"

	"github.com/kubecache/kubecache/kubeproto"
)

// This file decodes the three strings of ObjectMeta that no two objects
// share (name, uid and resourceVersion) into one allocation: they are never
// interned, they live exactly as long as their object, and one block of
// about 70 bytes costs less heap and less garbage collection than three
// (a 36-byte uid alone takes a 48-byte block).

// identityFields holds the protobuf field numbers of ObjectMeta's name,
// uid and resourceVersion, as the plan found them by JSON name.
type identityFields struct {
	name, uid, resourceVersion uint64
}

// claim records fi as one of the three when goField names it, and
// reports whether it did.
func (id *identityFields) claim(goField string, fi kubeproto.FieldInfo) bool {
	if fi.Kind != kubeproto.KindString || fi.Repeated || fi.Map || fi.Pointer {
		return false
	}
	switch goField {
	case "Name":
		id.name = uint64(fi.Number)
	case "UID":
		id.uid = uint64(fi.Number)
	case "ResourceVersion":
		id.resourceVersion = uint64(fi.Number)
	default:
		return false
	}
	return true
}

// decodedByIdentity is the walk's decoder of the three fields: they were
// set by identityFields.decode before the walk.
func decodedByIdentity(unsafe.Pointer, kubeproto.WireField, int) error { return nil }

// decode sets m's name, uid and resourceVersion from the ObjectMeta
// message data, each from its last occurrence as protobuf defines (one
// the message does not hold keeps m's value: a message given twice is
// merged), sharing one allocation. Invalid UTF-8 becomes U+FFFD as
// protoString makes it. Malformed data and fields of the wrong wire type
// are left to the walk that follows, which reports them.
func (id *identityFields) decode(data []byte, m *ObjectMeta) {
	var vals [3][]byte
	var present [3]bool
	size := 0
	for i := 0; i < len(data); {
		wf, next, err := kubeproto.ReadField(data, i)
		if err != nil {
			break
		}
		i = next
		if wf.Wire != kubeproto.WireBytes {
			continue
		}
		k := -1
		switch wf.Num {
		case id.name:
			k = 0
		case id.uid:
			k = 1
		case id.resourceVersion:
			k = 2
		}
		if k >= 0 {
			vals[k], present[k] = wf.Data, true
		}
	}
	valid := true
	for k := range vals {
		size += len(vals[k])
		valid = valid && utf8.Valid(vals[k])
	}
	dst := [3]*string{&m.Name, &m.UID, &m.ResourceVersion}
	var buf []byte
	if valid {
		buf = make([]byte, 0, size)
	}
	for k, v := range vals {
		switch {
		case !present[k]:
		case !valid:
			*dst[k] = protoString(v)
		default:
			start := len(buf)
			buf = append(buf, v...)
			*dst[k] = bytesString(buf[start:])
		}
	}
}

// bytesString returns b as a string sharing b's memory, which is never
// written again.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
