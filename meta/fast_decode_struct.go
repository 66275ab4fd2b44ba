package meta

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Fast path: the struct decoder. This file is the fast path of Decode for
// a user's own types: the same result as encoding/json.Unmarshal (the plain
// version), but in one pass over the bytes with the scanner of
// fast_scan.go, and with short repeated strings interned. The benchmark
// that justifies it is bench's BenchmarkDecode, typed against
// typed-encoding-json (go test -run '^$' -bench Decode -benchmem ./bench/;
// figures in docs/performance.md, "Where the heap goes"): a fraction of
// encoding/json's time, and far fewer bytes held per cached object. The
// leaf decoders it calls are in fast_decode_scalars.go.
//
// encoding/json reads an object at least twice (it checks the whole input,
// then decodes it with a byte-at-a-time state machine) and allocates every
// string anew. Here a decoder is built once per type by reflection: one
// function per field, fields found by their exact JSON name. Anything the
// fast path does not handle exactly as encoding/json does — a key that
// matches a field only case-insensitively, a key seen twice, a value of
// the wrong type, malformed JSON — makes it give up, and Decode starts
// again with encoding/json on a fresh object, which then decides the
// result or the error. Values of types the fast path does not know
// (interfaces, arrays, []byte, maps with non-string keys, types with
// UnmarshalText) are handed to encoding/json one field at a time.
//
// The result equals encoding/json's (FuzzDecodeStructMatchesEncodingJSON
// checks it), with one difference nobody can observe through the values:
// strings of at most internMax bytes are interned (intern.go), so that
// the many objects of a cache that share a namespace, a label, an owner,
// an image or a node name share its bytes. ObjectMeta's name, uid and
// resourceVersion are left alone: they never repeat.

// errSlowPath makes the fast path give up; Decode then uses encoding/json.
var errSlowPath = errors.New("meta: take encoding/json's path")

// valueDecoder decodes the JSON value at s.pos into v, which is settable.
type valueDecoder func(s *scanner, v reflect.Value) error

// structDecoders caches the fast decoder of each struct type: a
// *structDecoder, or nil when the type needs encoding/json throughout.
var structDecoders sync.Map // reflect.Type -> *structDecoder

// structDecoder decodes one struct type.
type structDecoder struct {
	typ    reflect.Type
	fields []structField
	// byName finds a field by its exact JSON name.
	byName map[string]int
	// folded holds the case-folded names of the fields, and foldLens a
	// bit for each length under 64 of those that are ASCII: a key that is
	// no field's exact name but folds to one makes the decoder give up,
	// because encoding/json matches keys case-insensitively.
	folded   map[string]bool
	foldLens uint64
}

// structField is one JSON member of a struct, possibly promoted from an
// embedded struct.
type structField struct {
	name   string
	index  []int
	decode valueDecoder
}

// structDecoderFor returns the fast decoder of struct type t, or nil if t
// must be decoded by encoding/json.
func structDecoderFor(t reflect.Type) *structDecoder {
	if d, ok := structDecoders.Load(t); ok {
		return d.(*structDecoder)
	}
	var d *structDecoder
	if t.Kind() == reflect.Struct && !decodesItself(t) {
		b := planBuilder{building: map[reflect.Type]*structDecoder{}}
		d = b.structType(t)
	}
	actual, _ := structDecoders.LoadOrStore(t, d)
	return actual.(*structDecoder)
}

// decodeTop decodes the JSON document data into the struct v with the
// fast path. On any error v may hold part of the input and must be
// discarded.
func (d *structDecoder) decodeTop(data []byte, v reflect.Value) error {
	s := scanner{data: data}
	if s.peek() == 'n' {
		if err := s.literal("null"); err != nil {
			return err
		}
		return s.end()
	}
	if err := d.decodeValue(&s, v); err != nil {
		return err
	}
	return s.end()
}

// decodeValue decodes an object (or null, which leaves v as it is) into
// the struct v.
func (d *structDecoder) decodeValue(s *scanner, v reflect.Value) error {
	switch s.peek() {
	case 'n':
		return s.literal("null")
	case '{':
	default:
		return errSlowPath
	}
	var seenSmall uint64
	var seen []bool
	if len(d.fields) > 64 {
		seen = make([]bool, len(d.fields))
	}
	return s.object(func(key []byte, escaped bool, _ int) error {
		name := key
		if escaped {
			name = []byte(unquote(key))
		}
		i, ok := d.byName[string(name)]
		if !ok {
			if d.foldsToField(name) {
				return errSlowPath
			}
			return s.skipValue()
		}
		// A repeated key merges into what the first one decoded under
		// encoding/json; leave that to it.
		if seen != nil {
			if seen[i] {
				return errSlowPath
			}
			seen[i] = true
		} else {
			if seenSmall&(1<<i) != 0 {
				return errSlowPath
			}
			seenSmall |= 1 << i
		}
		f := &d.fields[i]
		return f.decode(s, fieldByIndex(v, f.index))
	})
}

// fieldByIndex is v.FieldByIndex for the paths the builder allows (no
// pointers on the way).
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	if len(index) == 1 {
		return v.Field(index[0])
	}
	for _, i := range index {
		v = v.Field(i)
	}
	return v
}

// foldsToField reports whether key, which is no field's exact name,
// matches one case-insensitively.
func (d *structDecoder) foldsToField(key []byte) bool {
	ascii := true
	for _, c := range key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii && (len(key) >= 64 || d.foldLens&(1<<len(key)) == 0) {
		return false
	}
	var buf [64]byte
	return d.folded[string(appendFolded(buf[:0], key))]
}

// appendFolded appends the case-folded form of name: two names fold to
// the same bytes exactly when bytes.EqualFold reports them equal, which is
// how encoding/json matches keys to fields.
func appendFolded(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

// foldRune returns the smallest rune of r's case-folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// planBuilder builds the decoders of one type and the types it contains.
type planBuilder struct {
	// building holds the struct decoders being built, so that a
	// recursive type refers to its own decoder.
	building map[reflect.Type]*structDecoder
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType            = reflect.TypeFor[Time]()
	objectMetaType      = reflect.TypeFor[ObjectMeta]()
	ownerReferenceType  = reflect.TypeFor[OwnerReference]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	fieldsV1Type        = reflect.TypeFor[FieldsV1]()
	stringType          = reflect.TypeFor[string]()
	stringMapType       = reflect.TypeFor[map[string]string]()
)

// noIntern names the string fields that hold values unique to an object:
// looking them up in the intern table would cost time for nothing and
// push out strings that do repeat.
var noIntern = map[reflect.Type]map[string]bool{
	objectMetaType: {"Name": true, "UID": true, "ResourceVersion": true},
}

// decodesItself reports whether encoding/json hands values of type t to a
// method of the type rather than decoding them field by field.
func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonUnmarshalerType) || pt.Implements(textUnmarshalerType)
}

// candidate is a JSON member found in a struct's layout.
type candidate struct {
	name   string
	index  []int
	field  reflect.StructField
	parent reflect.Type
}

// structLayout lists the JSON members of struct t as encoding/json finds
// them, promoted fields of embedded structs included. ok is false when t
// uses the parts of encoding/json's rules the fast path leaves to it:
// embedded pointers, a struct embedded twice, a name that two fields
// claim, the ",string" option.
func structLayout(t reflect.Type) (cands []candidate, ok bool) {
	ok = true
	seenTypes := map[reflect.Type]bool{t: true}
	var walk func(st reflect.Type, prefix []int)
	walk = func(st reflect.Type, prefix []int) {
		for i := range st.NumField() {
			sf := st.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if !validTagName(name) {
				name = ""
			}
			index := append(append([]int(nil), prefix...), i)
			if sf.Anonymous {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					if ft.Elem().Kind() == reflect.Struct || sf.IsExported() {
						// A promoted field behind a pointer is
						// allocated on demand by encoding/json.
						ok = false
					}
					continue
				}
				if !sf.IsExported() && ft.Kind() != reflect.Struct {
					continue // encoding/json ignores it
				}
				if !sf.IsExported() && name != "" {
					ok = false // a named unexported struct: not settable
					continue
				}
				if name == "" && ft.Kind() == reflect.Struct {
					if seenTypes[ft] {
						ok = false
						continue
					}
					seenTypes[ft] = true
					walk(ft, index)
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			if hasOption(opts, "string") {
				ok = false
			}
			if name == "" {
				name = sf.Name
			}
			cands = append(cands, candidate{name: name, index: index, field: sf, parent: st})
		}
	}
	walk(t, nil)
	names := map[string]int{}
	for _, c := range cands {
		names[c.name]++
		if names[c.name] > 1 {
			// encoding/json picks a dominant field or drops the name;
			// leave those rules to it.
			ok = false
		}
	}
	return cands, ok
}

// structType returns the decoder of struct type t, or nil if values of t
// must go to encoding/json.
func (b *planBuilder) structType(t reflect.Type) *structDecoder {
	if d, ok := b.building[t]; ok {
		return d
	}
	cands, ok := structLayout(t)
	if !ok {
		return nil
	}
	d := &structDecoder{typ: t, byName: map[string]int{}, folded: map[string]bool{}}
	b.building[t] = d
	for _, c := range cands {
		intern := !noIntern[c.parent][c.field.Name]
		d.byName[c.name] = len(d.fields)
		d.fields = append(d.fields, structField{name: c.name, index: c.index, decode: b.valueType(c.field.Type, intern)})
		var buf [64]byte
		f := appendFolded(buf[:0], []byte(c.name))
		d.folded[string(f)] = true
		if len(f) < 64 {
			d.foldLens |= 1 << len(f)
		} else {
			d.foldLens = ^uint64(0)
		}
		for _, ch := range []byte(c.name) {
			if ch >= utf8.RuneSelf {
				// A non-ASCII name may fold to a key of another
				// length.
				d.foldLens = ^uint64(0)
			}
		}
	}
	return d
}

// hasOption reports whether a tag's comma-separated options hold opt.
func hasOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// validTagName reports whether encoding/json accepts name from a tag.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// valueType returns the decoder for a value of type t. intern says whether
// strings found directly in it (not in nested structs) are interned.
func (b *planBuilder) valueType(t reflect.Type, intern bool) valueDecoder {
	switch {
	case t == timeType:
		return decodeTime
	case t == rawMessageType:
		return decodeRawMessage
	case t == fieldsV1Type:
		return decodeFieldsV1
	case t.Kind() == reflect.Pointer:
		return b.pointerType(t, intern)
	case reflect.PointerTo(t).Implements(jsonUnmarshalerType):
		return decodeUnmarshaler
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		return decodeWithEncodingJSON
	}
	switch t.Kind() {
	case reflect.String:
		if intern {
			return decodeInternedString
		}
		return decodeString
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	case reflect.Struct:
		if sd := b.structType(t); sd != nil {
			return sd.decodeValue
		}
		return decodeWithEncodingJSON
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return decodeWithEncodingJSON // base64, or a custom byte type
		}
		return b.sliceType(t, intern)
	case reflect.Map:
		return b.mapType(t, intern)
	}
	// Interfaces, arrays, complex numbers, channels, functions.
	return decodeWithEncodingJSON
}

// pointerType decodes null as nil and anything else into a new value (or
// the one already pointed to).
func (b *planBuilder) pointerType(t reflect.Type, intern bool) valueDecoder {
	elem := t.Elem()
	if elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Interface {
		return decodeWithEncodingJSON
	}
	decElem := b.valueType(elem, intern)
	return func(s *scanner, v reflect.Value) error {
		if s.peek() == 'n' {
			if err := s.literal("null"); err != nil {
				return err
			}
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(elem))
		}
		return decElem(s, v.Elem())
	}
}

// sliceType decodes an array element by element; null is a nil slice and
// [] an empty one, as with encoding/json. The slice is sized exactly.
func (b *planBuilder) sliceType(t reflect.Type, intern bool) valueDecoder {
	if t.Elem() == stringType {
		return func(s *scanner, v reflect.Value) error { return decodeStringSlice(s, v, intern) }
	}
	decElem := b.valueType(t.Elem(), intern)
	// Elements are decoded in place into a scratch slice of this type,
	// taken from a pool, and copied once into a slice of exactly their
	// number: the cached object holds the slice for its life, and growing
	// it one element at a time would leave a trail of outgrown arrays
	// (four for a pod's five conditions).
	scratch := sync.Pool{New: func() any { return reflect.New(t).Interface() }}
	return func(s *scanner, v reflect.Value) error {
		if open, err := s.nullOrOpen('[', v); !open {
			return err
		}
		p := scratch.Get()
		sv := reflect.ValueOf(p).Elem()
		// Every element starts from its zero value: the scratch is
		// cleared before it goes back to the pool.
		err := s.array(func(i int) error {
			if i == sv.Cap() {
				sv.Grow(1)
			}
			sv.SetLen(i + 1)
			return decElem(s, sv.Index(i))
		})
		if err == nil {
			// Grown from nil, v gets one array for n elements, without
			// the slice header reflect.MakeSlice allocates; its capacity
			// is cut to n, so that an append to a copy of the object
			// never writes into memory the cached object holds.
			n := sv.Len()
			v.SetZero()
			if n == 0 {
				v.Set(reflect.MakeSlice(t, 0, 0)) // [], not null
			} else {
				v.Grow(n)
				v.SetLen(n)
				v.SetCap(n)
				reflect.Copy(v, sv)
			}
		}
		sv.Clear()
		sv.SetLen(0)
		scratch.Put(p)
		return err
	}
}

// nullOrOpen reads the start of a value that is null or opens with the
// byte open ('[' or '{'). A null is consumed and zeroes v; it reports true
// when the value opens with open and is left to read, and errSlowPath for
// any other value, which encoding/json then decodes.
func (s *scanner) nullOrOpen(open byte, v reflect.Value) (bool, error) {
	switch s.peek() {
	case 'n':
		if err := s.literal("null"); err != nil {
			return false, err
		}
		v.SetZero()
		return false, nil
	case open:
		return true, nil
	}
	return false, errSlowPath
}

// decodeStringSlice decodes an array of strings.
func decodeStringSlice(s *scanner, v reflect.Value, intern bool) error {
	if open, err := s.nullOrOpen('[', v); !open {
		return err
	}
	var buf [8]string
	out := buf[:0]
	err := s.array(func(int) error {
		str, err := s.stringOrNull(intern)
		if err != nil {
			return err
		}
		out = append(out, str)
		return nil
	})
	if err != nil {
		return err
	}
	exact := make([]string, len(out))
	copy(exact, out)
	sv := reflect.ValueOf(exact)
	if v.Type() != sv.Type() {
		sv = sv.Convert(v.Type())
	}
	v.Set(sv)
	return nil
}

// mapType decodes an object into a map with string keys; null is a nil
// map. Keys are always interned, values as intern says.
func (b *planBuilder) mapType(t reflect.Type, intern bool) valueDecoder {
	kt := t.Key()
	if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshalerType) {
		return decodeWithEncodingJSON
	}
	et := t.Elem()
	if t == stringMapType {
		return func(s *scanner, v reflect.Value) error { return decodeStringMap(s, v, intern) }
	}
	decElem := b.valueType(et, intern)
	return func(s *scanner, v reflect.Value) error {
		if open, err := s.nullOrOpen('{', v); !open {
			return err
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		elem := reflect.New(et).Elem()
		return s.object(func(key []byte, escaped bool, _ int) error {
			elem.SetZero()
			if err := decElem(s, elem); err != nil {
				return err
			}
			k := reflect.ValueOf(internedContent(key, escaped))
			if kt != k.Type() {
				k = k.Convert(kt)
			}
			v.SetMapIndex(k, elem)
			return nil
		})
	}
}

// decodeStringMap decodes an object of strings into a map[string]string.
func decodeStringMap(s *scanner, v reflect.Value, intern bool) error {
	if open, err := s.nullOrOpen('{', v); !open {
		return err
	}
	m := v.Interface().(map[string]string)
	if m == nil {
		m = map[string]string{}
		v.Set(reflect.ValueOf(m))
	}
	return s.object(func(key []byte, escaped bool, _ int) error {
		str, err := s.stringOrNull(intern)
		if err != nil {
			return err
		}
		m[internedContent(key, escaped)] = str
		return nil
	})
}
