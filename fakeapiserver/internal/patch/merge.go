package patch

import (
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// DecodeError reports a patch document that is not a valid patch.
type DecodeError struct{ Msg string }

// Error returns the reason the patch was refused.
func (e *DecodeError) Error() string { return e.Msg }

// ApplyError reports a valid patch that could not be applied.
type ApplyError struct {
	Msg string
	// Err is the operation's own error, when there is one.
	Err error
}

// Error returns the reason the patch did not apply.
func (e *ApplyError) Error() string { return e.Msg }

// Unwrap returns the operation's own error (ErrTestFailed ...).
func (e *ApplyError) Unwrap() error { return e.Err }

// Merge applies an RFC 7386 merge patch to target and returns the result.
// target is not modified. Keys already in target keep their position; keys
// the patch adds are appended in the patch's order. The patch must be a JSON
// object (as the API server requires).
func Merge(target []byte, patchDoc []byte) (jsonv.Value, error) {
	tv, err := jsonv.Parse(target)
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("merge patch target: %w", err)
	}
	pv, err := jsonv.Parse(patchDoc)
	if err != nil {
		// The real server's words for a patch that is not JSON.
		return jsonv.Value{}, &DecodeError{Msg: "invalid JSON patch"}
	}
	if pv.Value.Kind != jsonv.Object {
		return jsonv.Value{}, &DecodeError{Msg: fmt.Sprintf("error decoding patch: json: cannot unmarshal %s into Go value of type map[string]interface {}", goKind(pv.Value.Kind))}
	}
	return MergeValues(tv.Value, pv.Value), nil
}

// MergeValues applies the merge patch p to t. It may share structure with
// both arguments; callers must not modify them afterwards.
func MergeValues(t, p jsonv.Value) jsonv.Value {
	if p.Kind != jsonv.Object {
		return p
	}
	var out jsonv.Value
	if t.Kind == jsonv.Object {
		out = jsonv.Value{Kind: jsonv.Object, Obj: append([]jsonv.Member(nil), t.Obj...)}
	} else {
		out = jsonv.NewObject()
	}
	if len(p.Obj) >= indexedPatch {
		return mergeIndexed(out, p)
	}
	for _, m := range p.Obj {
		if m.Value.Kind == jsonv.Null {
			out.Delete(m.Key)
			continue
		}
		var cur jsonv.Value
		if c := out.Get(m.Key); c != nil {
			cur = *c
		} else {
			cur = jsonv.Value{Kind: jsonv.Null}
		}
		out.Set(m.Key, MergeValues(cur, m.Value))
	}
	return out
}

// indexedPatch is the number of patch members from which MergeValues finds
// keys through a map rather than a scan of the target per key (which
// makes a large patch of a large object quadratic).
const indexedPatch = 32

// mergeIndexed is MergeValues' loop over a large patch: the same result
// (kept keys keep their place, removed keys go, new keys are appended in
// the patch's order) in time linear in both objects.
func mergeIndexed(out, p jsonv.Value) jsonv.Value {
	index := make(map[string]int, len(out.Obj)+len(p.Obj))
	for i, m := range out.Obj {
		index[m.Key] = i
	}
	gone := make(map[int]bool)
	for _, m := range p.Obj {
		i, ok := index[m.Key]
		if m.Value.Kind == jsonv.Null {
			if ok {
				gone[i] = true
				delete(index, m.Key)
			}
			continue
		}
		if ok {
			out.Obj[i].Value = MergeValues(out.Obj[i].Value, m.Value)
			continue
		}
		index[m.Key] = len(out.Obj)
		out.Obj = append(out.Obj, jsonv.Member{Key: m.Key, Value: MergeValues(jsonv.Value{Kind: jsonv.Null}, m.Value)})
	}
	if len(gone) > 0 {
		kept := out.Obj[:0]
		for i, m := range out.Obj {
			if !gone[i] {
				kept = append(kept, m)
			}
		}
		out.Obj = kept
	}
	return out
}

// goKind names a JSON type as encoding/json's errors do.
func goKind(k jsonv.Kind) string {
	switch k {
	case jsonv.Bool:
		return "bool"
	case jsonv.Null:
		return "null"
	}
	return k.String()
}
