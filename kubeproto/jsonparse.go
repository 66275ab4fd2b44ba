package kubeproto

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of JSON input.
const maxJSONDepth = 1000

// jsonKind is the type of a parsed JSON value.
type jsonKind uint8

const (
	jNull jsonKind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jsonValue is a parsed JSON value that keeps its bytes in the input:
// raw values (RawExtension, FieldsV1) are copied from the input exactly,
// as the Kubernetes types' UnmarshalJSON methods do.
type jsonValue struct {
	kind jsonKind
	// raw is the value's span in the input (for strings, with quotes).
	raw []byte
	// str is the unescaped string of a jString.
	str string
	// elems are the elements of a jArray.
	elems []jsonValue
	// members are the members of a jObject, in input order.
	members []jsonMember
}

// jsonMember is one name/value pair of an object.
type jsonMember struct {
	name  string
	value jsonValue
}

// jsonParser reads one JSON document.
type jsonParser struct {
	b []byte
	i int
}

// parseJSON parses b, which must hold exactly one JSON value.
func parseJSON(b []byte) (jsonValue, error) {
	p := jsonParser{b: b}
	v, err := p.value(0)
	if err != nil {
		return jsonValue{}, err
	}
	p.space()
	if p.i != len(p.b) {
		return jsonValue{}, p.errorf("invalid character %q after top-level value", p.b[p.i])
	}
	return v, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("json: offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, p.errorf("exceeded max depth of %d", maxJSONDepth)
	}
	p.space()
	if p.i >= len(p.b) {
		return jsonValue{}, p.errorf("unexpected end of JSON input")
	}
	start := p.i
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		return jsonValue{kind: jString, raw: p.b[start:p.i], str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		err := p.number()
		return jsonValue{kind: jNumber, raw: p.b[start:p.i]}, err
	case p.literal("true"), p.literal("false"):
		return jsonValue{kind: jBool, raw: p.b[start:p.i]}, nil
	case p.literal("null"):
		return jsonValue{kind: jNull, raw: p.b[start:p.i]}, nil
	default:
		return jsonValue{}, p.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (p *jsonParser) literal(lit string) bool {
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return true
	}
	return false
}

// open consumes the bracket at p.i and the space after it, and the
// closing bracket close when it follows at once (an empty container,
// empty). start is where the container began.
func (p *jsonParser) open(close byte) (start int, empty bool) {
	start = p.i
	p.i++
	p.space()
	if p.i < len(p.b) && p.b[p.i] == close {
		p.i++
		return start, true
	}
	return start, false
}

func (p *jsonParser) object(depth int) (jsonValue, error) {
	v := jsonValue{kind: jObject}
	start, empty := p.open('}')
	if empty {
		v.raw = p.b[start:p.i]
		return v, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return jsonValue{}, p.errorf("expected a string for an object key")
		}
		name, err := p.string()
		if err != nil {
			return jsonValue{}, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return jsonValue{}, p.errorf("expected ':' after object key")
		}
		p.i++
		val, err := p.value(depth + 1)
		if err != nil {
			return jsonValue{}, err
		}
		v.members = append(v.members, jsonMember{name: name, value: val})
		done, err := p.commaOrClose('}', "object key:value pair")
		if err != nil {
			return jsonValue{}, err
		}
		if done {
			v.raw = p.b[start:p.i]
			return v, nil
		}
	}
}

func (p *jsonParser) array(depth int) (jsonValue, error) {
	v := jsonValue{kind: jArray}
	start, empty := p.open(']')
	if empty {
		v.raw = p.b[start:p.i]
		return v, nil
	}
	for {
		el, err := p.value(depth + 1)
		if err != nil {
			return jsonValue{}, err
		}
		v.elems = append(v.elems, el)
		done, err := p.commaOrClose(']', "array element")
		if err != nil {
			return jsonValue{}, err
		}
		if done {
			v.raw = p.b[start:p.i]
			return v, nil
		}
	}
}

// commaOrClose reads what follows an object member or array element (what
// names it in errors): a comma, or the closing byte end, and reports
// whether it was the close.
func (p *jsonParser) commaOrClose(end byte, what string) (bool, error) {
	p.space()
	if p.i >= len(p.b) {
		return false, p.errorf("unexpected end of JSON input")
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return false, nil
	case end:
		p.i++
		return true, nil
	}
	return false, p.errorf("invalid character %q after %s", p.b[p.i], what)
}

// number checks the JSON number grammar.
func (p *jsonParser) number() error {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		p.i = i
		return p.errorf("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			p.i = i
			return p.errorf("invalid number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			p.i = i
			return p.errorf("invalid number")
		}
	}
	p.i = i
	return nil
}

// string reads a quoted string at p.i, unescaping it; invalid UTF-8 and
// lone surrogates become U+FFFD, as encoding/json does.
func (p *jsonParser) string() (string, error) {
	p.i++
	start := p.i
	simple := true
	for ; p.i < len(p.b); p.i++ {
		c := p.b[p.i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", p.errorf("invalid character %q in string literal", c)
		}
		if c == '\\' || c >= utf8.RuneSelf {
			simple = false
			if c == '\\' {
				p.i++
			}
		}
	}
	if p.i >= len(p.b) {
		return "", p.errorf("unexpected end of JSON input")
	}
	body := p.b[start:p.i]
	p.i++
	if simple {
		return string(body), nil
	}
	return unescape(body)
}

var errBadEscape = errors.New("json: invalid escape in string literal")

func unescape(s []byte) (string, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", errBadEscape
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i += 2
			case 'b':
				out, i = append(out, '\b'), i+2
			case 'f':
				out, i = append(out, '\f'), i+2
			case 'n':
				out, i = append(out, '\n'), i+2
			case 'r':
				out, i = append(out, '\r'), i+2
			case 't':
				out, i = append(out, '\t'), i+2
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return "", errBadEscape
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok2 = hex4(s[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", errBadEscape
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r)
			i += size
		}
	}
	return string(out), nil
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[:4]), 16, 32)
	return rune(v), err == nil
}
