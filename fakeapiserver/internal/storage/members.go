package storage

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// FindMember returns the member named key, or nil.
func FindMember(ms []jsonv.Member, key string) *jsonv.Value {
	for i := range ms {
		if ms[i].Key == key {
			return &ms[i].Value
		}
	}
	return nil
}

// ReplaceMember returns ms with key set to v (removed when v is nil),
// keeping its position or appending it.
func ReplaceMember(ms []jsonv.Member, key string, v *jsonv.Value) []jsonv.Member {
	out := make([]jsonv.Member, 0, len(ms)+1)
	done := false
	for _, m := range ms {
		if m.Key == key {
			if v != nil {
				out = append(out, jsonv.Member{Key: key, Value: *v})
			}
			done = true
			continue
		}
		out = append(out, m)
	}
	if !done && v != nil {
		out = append(out, jsonv.Member{Key: key, Value: *v})
	}
	return out
}

// DocumentOf wraps members as an object for field lookups.
func DocumentOf(rest []jsonv.Member) jsonv.Value {
	return jsonv.Value{Kind: jsonv.Object, Obj: rest}
}

// EncodeRest encodes members as `,"k":v…` for assemble.
func EncodeRest(rest []jsonv.Member) []byte {
	var buf []byte
	for _, mem := range rest {
		buf = append(buf, ',')
		buf = jsonv.AppendString(buf, mem.Key)
		buf = append(buf, ':')
		buf = jsonv.Append(buf, mem.Value)
	}
	return buf
}

// SetStatusPhase sets .status.phase in a body.
func SetStatusPhase(rest []jsonv.Member, phase string) []jsonv.Member {
	st := jsonv.NewObject()
	if cur := FindMember(rest, "status"); cur != nil && cur.Kind == jsonv.Object {
		st = cur.Clone()
	}
	st.Set("phase", jsonv.NewString(phase))
	return ReplaceMember(rest, "status", &st)
}

// RestOf returns an object's top-level members other than kind,
// apiVersion and metadata.
func RestOf(o *Object) ([]jsonv.Member, error) {
	doc, err := o.Document()
	if err != nil {
		return nil, err
	}
	out := make([]jsonv.Member, 0, len(doc.Obj))
	for _, m := range doc.Obj {
		switch m.Key {
		case "kind", "apiVersion", "metadata":
		default:
			out = append(out, m)
		}
	}
	return out, nil
}
