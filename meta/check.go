package meta

import (
	"fmt"
	"reflect"
	"strings"
)

// CheckType reports whether the struct T points to embeds TypeMeta and
// ObjectMeta with the tags that make them decode: TypeMeta untagged or
// `json:",inline"`, ObjectMeta `json:"metadata"`.
//
// An untagged embedded ObjectMeta compiles and satisfies Object, but its
// fields are then read from the top level of the JSON object, so name,
// namespace and resourceVersion silently decode as empty. The cache calls
// CheckType once per type and refuses such a type with this error.
func CheckType[T Object]() error {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%v: an Object must be a pointer to a struct", typ)
	}
	st := typ.Elem()
	if reflect.PointerTo(st).Implements(reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()) {
		// The type decodes itself (Unstructured does); trust it.
		return nil
	}
	var sawType, sawMeta bool
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		switch f.Type {
		case reflect.TypeFor[TypeMeta]():
			sawType = true
			if tag != "" && !strings.HasPrefix(tag, ",") {
				return fmt.Errorf("%v: embedded TypeMeta has tag %q; it must be `json:\",inline\"`", st, tag)
			}
		case reflect.TypeFor[ObjectMeta]():
			sawMeta = true
			if name, _, _ := strings.Cut(tag, ","); name != "metadata" {
				return fmt.Errorf("%v: embedded ObjectMeta has tag %q; it must be `json:\"metadata\"` or the object's metadata decodes as empty", st, tag)
			}
		}
	}
	switch {
	case !sawType:
		return fmt.Errorf("%v: does not embed meta.TypeMeta directly", st)
	case !sawMeta:
		return fmt.Errorf("%v: does not embed meta.ObjectMeta directly", st)
	}
	return nil
}
