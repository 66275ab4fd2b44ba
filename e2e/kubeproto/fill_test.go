package kubeproto

import (
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// fillMode says how a filler sets the fields of an object.
type fillMode string

const (
	// fillFull sets every field to a non-zero value.
	fillFull fillMode = "full"
	// fillEmpty sets slices and maps to empty non-nil values, pointers to
	// zero values and everything else to zero: the omitempty and
	// presence edge cases.
	fillEmpty fillMode = "empty"
	// fillSparse sets every other field, alternating by position.
	fillSparse fillMode = "sparse"
)

// quantities exercise the quantity parser's canonical forms, both the
// strings it keeps and those it rewrites.
var quantities = []string{
	"1", "100m", "1Ki", "1.5", "+1", "01", "1000", "0.5Gi", "1e3", "12e3", "1.5e3", "123456789012345678901",
	"1n", "0.0000000001", "1024Ki", "1025Ki", "8Ki", "-1", "-1.5Gi", "500M", "2E", "1000E", "0.1Ki", "9223372036854775807Ki",
}

// strs exercise JSON string escaping.
var strs = []string{"value", "<a&b>", "é ünïcode ☃", "line\nbreak\t\"quoted\"\\", "\u2028\u2029", "\x01ctl"}

// filler fills Go values by reflection, deterministically.
type filler struct {
	mode  fillMode
	n     int
	stack map[reflect.Type]int
}

func newFiller(mode fillMode) *filler {
	return &filler{mode: mode, stack: map[reflect.Type]int{}}
}

func (f *filler) next() int { f.n++; return f.n }

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	intstrType    = reflect.TypeFor[intstr.IntOrString]()
	typeMetaType  = reflect.TypeFor[metav1.TypeMeta]()
)

// fill sets v (addressable) according to the mode.
func (f *filler) fill(v reflect.Value, depth int) {
	t := v.Type()
	switch t {
	case timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(time.Unix(1700000000+int64(f.next())*3671, 0))))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(time.Unix(1700000000+int64(f.next()), int64(f.n)*1001000))))
		return
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse(quantities[f.next()%len(quantities)])))
		return
	case intstrType:
		if f.next()%2 == 0 {
			v.Set(reflect.ValueOf(intstr.FromInt32(int32(f.n))))
		} else {
			v.Set(reflect.ValueOf(intstr.FromString(fmt.Sprintf("port-%d", f.n))))
		}
		return
	case typeMetaType:
		return
	}
	switch t.Kind() {
	case reflect.String:
		i := f.next()
		if i%7 == 0 {
			v.SetString(strs[i/7%len(strs)])
		} else {
			v.SetString(fmt.Sprintf("s%d", i))
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int32, reflect.Int64, reflect.Int:
		i := int64(f.next())
		if i%5 == 0 {
			i = -i
		}
		v.SetInt(i)
	case reflect.Float64:
		v.SetFloat([]float64{1.5, 1e21, 1e-7, -0.25, 3}[f.next()%5])
	case reflect.Pointer:
		if f.recursive(t.Elem(), depth) {
			return
		}
		p := reflect.New(t.Elem())
		if f.mode != fillEmpty {
			f.fill(p.Elem(), depth+1)
		}
		v.Set(p)
	case reflect.Slice:
		f.fillSlice(v, depth)
	case reflect.Map:
		f.fillMap(v, depth)
	case reflect.Struct:
		f.fillStruct(v, depth)
	}
}

// recursive reports whether t is already being filled twice up the
// stack (JSONSchemaProps nests itself), which ends the recursion.
func (f *filler) recursive(t reflect.Type, depth int) bool {
	return f.stack[t] >= 2 || depth > 40
}

func (f *filler) fillSlice(v reflect.Value, depth int) {
	t := v.Type()
	if t.Elem().Kind() == reflect.Uint8 {
		switch {
		case isRawJSON(v) && f.mode == fillEmpty:
			// An empty raw value is not JSON at all; nil prints null.
		case f.mode == fillEmpty:
			v.SetBytes([]byte{})
		case isRawJSON(v):
			v.SetBytes([]byte(fmt.Sprintf(`{"a":%d,"b":[true,null,"<x>"],"c":{}}`, f.next())))
		default:
			v.SetBytes([]byte{0, 1, 2, 0xff, byte(f.next())})
		}
		return
	}
	if f.mode == fillEmpty {
		v.Set(reflect.MakeSlice(t, 0, 0))
		return
	}
	if f.recursive(t.Elem(), depth) {
		return
	}
	s := reflect.MakeSlice(t, 2, 2)
	for i := range 2 {
		f.fill(s.Index(i), depth+1)
	}
	v.Set(s)
}

// isRawJSON reports whether a []byte field holds raw JSON (the Raw of
// RawExtension, FieldsV1 and apiextensions JSON), which must stay valid
// JSON to be printed at all.
func isRawJSON(v reflect.Value) bool { return v.CanAddr() && rawFields[v.Addr().Pointer()] }

// rawFields are the addresses of the Raw fields met while filling.
var rawFields = map[uintptr]bool{}

func (f *filler) fillMap(v reflect.Value, depth int) {
	t := v.Type()
	m := reflect.MakeMap(t)
	if f.mode != fillEmpty && !f.recursive(t.Elem(), depth) {
		for _, k := range []string{"b-key", "a-key", "<c&>"} {
			val := reflect.New(t.Elem()).Elem()
			f.fill(val, depth+1)
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), val)
		}
	}
	v.Set(m)
}

func (f *filler) fillStruct(v reflect.Value, depth int) {
	t := v.Type()
	f.stack[t]++
	defer func() { f.stack[t]-- }()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Tag.Get("protobuf") == "" && !sf.Anonymous {
			continue
		}
		if f.mode == fillSparse && (i+depth)%2 == 1 {
			continue
		}
		fv := v.Field(i)
		if sf.Name == "Raw" && sf.Type.Kind() == reflect.Slice {
			rawFields[fv.Addr().Pointer()] = true
		}
		if f.mode == fillEmpty && depth > 0 && fv.Kind() != reflect.Slice && fv.Kind() != reflect.Map && fv.Kind() != reflect.Pointer {
			continue
		}
		f.fill(fv, depth+1)
	}
}
