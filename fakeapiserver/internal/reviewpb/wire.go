package reviewpb

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every error about bytes that are not valid
// protobuf wire format.
var ErrMalformed = errors.New("malformed protobuf")

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// wireField is one decoded field: its number and wire type, and its
// payload (the bytes of a length-delimited field, or the varint).
type wireField struct {
	num    int
	typ    int
	bytes  []byte
	varint uint64
}

// varint reads a base-128 varint from the start of b and returns it with
// the number of bytes it took.
func varint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: truncated or overlong varint", ErrMalformed)
}

// fields splits a message into its fields, in order. Groups (wire types 3
// and 4) are refused: no Kubernetes type uses them.
func fields(b []byte) ([]wireField, error) {
	var out []wireField
	for len(b) > 0 {
		tag, n, err := varint(b)
		if err != nil {
			return nil, err
		}
		b = b[n:]
		f := wireField{num: int(tag >> 3), typ: int(tag & 7)}
		if tag>>3 == 0 || tag>>3 > 1<<29 {
			return nil, fmt.Errorf("%w: field number %d out of range", ErrMalformed, tag>>3)
		}
		switch f.typ {
		case wireVarint:
			f.varint, n, err = varint(b)
			if err != nil {
				return nil, err
			}
			b = b[n:]
		case wireFixed64, wireFixed32:
			size := 8
			if f.typ == wireFixed32 {
				size = 4
			}
			if len(b) < size {
				return nil, fmt.Errorf("%w: field %d: truncated fixed-size value", ErrMalformed, f.num)
			}
			b = b[size:]
		case wireBytes:
			l, n, err := varint(b)
			if err != nil {
				return nil, err
			}
			b = b[n:]
			if l > uint64(len(b)) {
				return nil, fmt.Errorf("%w: field %d: length %d past the end of the message (%d bytes left)", ErrMalformed, f.num, l, len(b))
			}
			f.bytes, b = b[:l], b[l:]
		default:
			return nil, fmt.Errorf("%w: field %d: unsupported wire type %d", ErrMalformed, f.num, f.typ)
		}
		out = append(out, f)
	}
	return out, nil
}
