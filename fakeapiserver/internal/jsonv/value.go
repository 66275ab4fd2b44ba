package jsonv

// Kind is the JSON type of a Value.
type Kind uint8

// The six JSON types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names k as JSON Schema does.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "unknown"
}

// Value is one JSON value. Which fields are meaningful depends on Kind:
// Bool uses B, Number keeps its literal text in Str, String its decoded text
// in Str, Array uses Arr and Object uses Obj (members in document order).
//
// A Value is a plain tree: copying a Value shares its slices, so use Clone
// before editing a Value that someone else holds.
type Value struct {
	Kind Kind
	B    bool
	Str  string
	Arr  []Value
	Obj  []Member
}

// Member is one key of a JSON object with its value.
type Member struct {
	Key   string
	Value Value
}

// NewString returns a JSON string.
func NewString(s string) Value { return Value{Kind: String, Str: s} }

// NewObject returns an empty JSON object.
func NewObject() Value { return Value{Kind: Object, Obj: []Member{}} }

// Get returns a pointer to the value of key in an object, or nil when v is
// not an object or has no such key. The pointer stays valid until v's member
// list is next changed.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Obj {
		if v.Obj[i].Key == key {
			return &v.Obj[i].Value
		}
	}
	return nil
}

// Index returns the position of key in an object's members, or -1.
func (v *Value) Index(key string) int {
	if v == nil || v.Kind != Object {
		return -1
	}
	for i := range v.Obj {
		if v.Obj[i].Key == key {
			return i
		}
	}
	return -1
}

// Set replaces the value of key in an object, keeping its position, or
// appends the key when it is new. It does nothing when v is not an object.
func (v *Value) Set(key string, val Value) {
	if v.Kind != Object {
		return
	}
	if i := v.Index(key); i >= 0 {
		v.Obj[i].Value = val
		return
	}
	v.Obj = append(v.Obj, Member{Key: key, Value: val})
}

// Delete removes key from an object and reports whether it was there.
func (v *Value) Delete(key string) bool {
	i := v.Index(key)
	if i < 0 {
		return false
	}
	v.Obj = append(v.Obj[:i:i], v.Obj[i+1:]...)
	return true
}

// Clone returns a deep copy of v.
func (v Value) Clone() Value {
	switch v.Kind {
	case Array:
		arr := make([]Value, len(v.Arr))
		for i := range v.Arr {
			arr[i] = v.Arr[i].Clone()
		}
		v.Arr = arr
	case Object:
		obj := make([]Member, len(v.Obj))
		for i := range v.Obj {
			obj[i] = Member{Key: v.Obj[i].Key, Value: v.Obj[i].Value.Clone()}
		}
		v.Obj = obj
	}
	return v
}

// Equal reports whether a and b are the same JSON value. Object members are
// compared regardless of order; numbers are compared by their literal text,
// so 1 and 1.0 differ.
func Equal(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.B == b.B
	case Number, String:
		return a.Str == b.Str
	case Array:
		if len(a.Arr) != len(b.Arr) {
			return false
		}
		for i := range a.Arr {
			if !Equal(a.Arr[i], b.Arr[i]) {
				return false
			}
		}
		return true
	case Object:
		return equalObjects(a.Obj, b.Obj)
	}
	return false
}

// equalObjects compares two member lists regardless of order: member by
// member while the keys line up (the usual case: one document and an edit
// of it), then through a map of b's keys, so that large objects compare in
// linear time.
func equalObjects(a, b []Member) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for ; i < len(a) && a[i].Key == b[i].Key; i++ {
		if !Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	if i == len(a) {
		return true
	}
	a, b = a[i:], b[i:]
	if len(b) < indexAbove {
		rest := Value{Kind: Object, Obj: b}
		for j := range a {
			other := rest.Get(a[j].Key)
			if other == nil || !Equal(a[j].Value, *other) {
				return false
			}
		}
		return true
	}
	index := make(map[string]int, len(b))
	for j := range b {
		index[b[j].Key] = j
	}
	for j := range a {
		k, ok := index[a[j].Key]
		if !ok || !Equal(a[j].Value, b[k].Value) {
			return false
		}
	}
	return true
}

// Pruned returns a deep copy of v without the object members for which
// drop returns true. drop sees each member's value already pruned, so it
// can drop what pruning emptied.
func Pruned(v Value, drop func(key string, pruned Value) bool) Value {
	switch v.Kind {
	case Object:
		out := Value{Kind: Object, Obj: make([]Member, 0, len(v.Obj))}
		for _, m := range v.Obj {
			if c := Pruned(m.Value, drop); !drop(m.Key, c) {
				out.Obj = append(out.Obj, Member{Key: m.Key, Value: c})
			}
		}
		return out
	case Array:
		out := Value{Kind: Array, Arr: make([]Value, len(v.Arr))}
		for i := range v.Arr {
			out.Arr[i] = Pruned(v.Arr[i], drop)
		}
		return out
	}
	return v
}
