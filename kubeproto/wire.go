package kubeproto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// errTruncated is wrapped when a value runs past the end of its message
// (the generated decoders' io.ErrUnexpectedEOF).
var errTruncated = io.ErrUnexpectedEOF

// appendVarint appends v as a base-128 varint.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// varintLen is the number of bytes appendVarint writes for v.
func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// appendTag appends the key of field num with wire type wt.
func appendTag(b []byte, num int32, wt int) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(wt))
}

// appendVarintField appends field num as a varint.
func appendVarintField(b []byte, num int32, v uint64) []byte {
	return appendVarint(appendTag(b, num, wireVarint), v)
}

// appendBytesField appends a length-delimited field.
func appendBytesField(b []byte, num int32, v []byte) []byte {
	b = appendTag(b, num, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendStringField appends a length-delimited string field.
func appendStringField(b []byte, num int32, v string) []byte {
	b = appendTag(b, num, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// beginNested appends the tag of a nested message and a one-byte length
// placeholder; endNested fills the length in once the body is written.
func beginNested(b []byte, num int32) ([]byte, int) {
	b = appendTag(b, num, wireBytes)
	b = append(b, 0)
	return b, len(b)
}

// endNested writes the length of the body that started at start (as
// returned by beginNested), moving the body when the length needs more
// than one byte.
func endNested(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	extra := varintLen(uint64(n)) - 1
	b = append(b, make([]byte, extra)...)
	copy(b[start+extra:], b[start:start+n])
	appendVarint(b[start-1:start-1], uint64(n))
	return b
}

// readVarint reads a varint at b[i:], returning the value and the index
// after it.
func readVarint(b []byte, i int) (uint64, int, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, 0, errors.New("proto: integer overflow")
		}
		if i >= len(b) {
			return 0, 0, errTruncated
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
}

// wireField is one field read off the wire: its number, wire type, and
// either its varint/fixed value or its length-delimited bytes.
type wireField struct {
	num  uint64
	wire int
	u    uint64
	data []byte
}

// readField reads the field at b[i:] and returns it with the index after
// it. Lengths are checked against the end of b before anything is sliced.
func readField(b []byte, i int) (wireField, int, error) {
	key, i, err := readVarint(b, i)
	if err != nil {
		return wireField{}, 0, err
	}
	f := wireField{num: key >> 3, wire: int(key & 7)}
	if f.wire == 6 || f.wire == 7 {
		return wireField{}, 0, fmt.Errorf("proto: illegal wireType %d", f.wire)
	}
	if f.num == 0 || f.num > 1<<29-1 {
		return wireField{}, 0, fmt.Errorf("proto: illegal tag %d (wire type %d)", f.num, f.wire)
	}
	switch f.wire {
	case wireVarint:
		f.u, i, err = readVarint(b, i)
		return f, i, err
	case wireFixed64:
		if len(b)-i < 8 {
			return wireField{}, 0, errTruncated
		}
		f.u = binary.LittleEndian.Uint64(b[i:])
		return f, i + 8, nil
	case wireFixed32:
		if len(b)-i < 4 {
			return wireField{}, 0, errTruncated
		}
		f.u = uint64(binary.LittleEndian.Uint32(b[i:]))
		return f, i + 4, nil
	case wireBytes:
		var n uint64
		n, i, err = readVarint(b, i)
		if err != nil {
			return wireField{}, 0, err
		}
		if n > uint64(len(b)-i) {
			return wireField{}, 0, errTruncated
		}
		f.data = b[i : i+int(n)]
		return f, i + int(n), nil
	}
	return wireField{}, 0, fmt.Errorf("unsupported wire type %d for field %d", f.wire, f.num)
}
