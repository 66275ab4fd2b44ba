package meta

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
)

// Object is what the cache keys on and tracks: anything with TypeMeta and
// ObjectMeta. A user type satisfies it by embedding both (see the package
// Example); the methods are promoted from the embedded fields, so Object is
// always implemented by a pointer type such as *Pod.
type Object interface {
	GetTypeMeta() *TypeMeta
	GetObjectMeta() *ObjectMeta
}

// New allocates a zero value of the type T points to and returns the pointer.
// T must be a pointer type implementing Object, such as *Pod.
func New[T Object]() T {
	return newer[T]()()
}

// newers caches one allocation function per Object type, so New pays for
// reflection once per type rather than once per object.
var newers sync.Map // reflect.Type -> func() any

func newer[T Object]() func() T {
	typ := reflect.TypeFor[T]()
	if f, ok := newers.Load(typ); ok {
		return f.(func() T)
	}
	if typ.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("meta: %v implements Object but is not a pointer type", typ))
	}
	elem := typ.Elem()
	f := func() T { return reflect.New(elem).Interface().(T) }
	newers.Store(typ, f)
	return f
}

// Decode allocates a new T and decodes the JSON object data into it.
//
// If *T implements json.Unmarshaler (Unstructured does), that method decides
// how the object is held. Otherwise the result, or the error, is what
// json.Unmarshal gives, but reached in one pass over data (see
// fast_decode_struct.go), and strings of up to 64 bytes other than the object's
// name, uid and resourceVersion are interned: objects that share a
// namespace, a label, an owner or an image share its bytes.
func Decode[T Object](data []byte) (T, error) {
	obj := New[T]()
	var err error
	if d, ok := any(obj).(checkingDecoder); ok {
		err = d.decodeChecked(data)
	} else if sd := structDecoderFor(reflect.TypeFor[T]().Elem()); sd != nil {
		if sd.decodeTop(data, reflect.ValueOf(obj).Elem()) != nil {
			// The fast path gave up: encoding/json decides, on a
			// fresh object.
			obj = New[T]()
			err = json.Unmarshal(data, obj)
		}
	} else {
		err = json.Unmarshal(data, obj)
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s: %w", typeName[T](), err)
	}
	return obj, nil
}

// checkingDecoder is implemented by the types of this package whose
// UnmarshalJSON checks the whole input itself (Unstructured and
// PartialObjectMetadata), so that Decode need not let encoding/json check
// it a second time first.
type checkingDecoder interface {
	decodeChecked(data []byte) error
}

// typeName names T for error messages: "Pod" for *Pod.
func typeName[T any]() string {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// Key returns the cache key of an object: "namespace/name", or "name" for a
// cluster-scoped object.
func Key(obj Object) string {
	m := obj.GetObjectMeta()
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// IsNil reports whether v is nil or holds a nil pointer, map, slice,
// function, channel or interface. Every Object is a pointer type, so a
// typed nil passes an `obj == nil` test on the interface yet panics on its
// first promoted method (GetObjectMeta); code that may be handed such a
// value — a store's Add, a Transform's result, a handler or a
// ListerWatcher given to a constructor — asks IsNil instead.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}
