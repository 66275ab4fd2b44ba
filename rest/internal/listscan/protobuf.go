package listscan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
)

// maxProtoMeta bounds the parts of a protobuf list that are not items: the
// envelope's typeMeta and content fields, and the list's metadata.
const maxProtoMeta = 1 << 20

// ScanProtobuf reads one list from r in the Kubernetes protobuf encoding
// and calls each with the bare message of every item, in order, as soon as
// the item has been read: kubeproto.Magic, then a runtime.Unknown whose
// typeMeta (field 1) names the list's kind and whose raw (field 2) is the
// list message, metadata (field 1, a ListMeta) and items (field 2, one per
// item). The item slice aliases ScanProtobuf's buffer and is only valid
// during the call; memory is bounded by the largest item.
//
// The TypeMeta handed to each and returned is the envelope's; an envelope
// whose raw comes before its typeMeta, an item over maxItem bytes (an error
// wrapping ErrItemTooLarge), a body that does not start with the magic, a
// malformed field, an envelope whose content encoding is not empty and a
// body that ends inside a field (an error wrapping io.ErrUnexpectedEOF)
// are errors. If each returns an error, ScanProtobuf stops and returns it
// unchanged.
func ScanProtobuf(r io.Reader, maxItem int, each func(list meta.TypeMeta, item []byte) error) (meta.TypeMeta, meta.ListMeta, error) {
	p := protoScanner{r: bufio.NewReaderSize(r, minRead), maxItem: maxItem, each: each}
	err := p.body()
	return p.tm, p.lm, err
}

type protoScanner struct {
	r       *bufio.Reader
	maxItem int
	each    func(meta.TypeMeta, []byte) error
	buf     []byte
	read    int64 // bytes consumed, for error messages
	tm      meta.TypeMeta
	hasTM   bool
	lm      meta.ListMeta
}

// body reads the magic and the envelope's fields up to the end of input.
func (p *protoScanner) body() error {
	var magic [4]byte
	if _, err := io.ReadFull(p.r, magic[:]); err != nil {
		return fmt.Errorf("protobuf list: %w", unexpected(err))
	}
	p.read = 4
	if !bytes.Equal(magic[:], kubeproto.Magic) {
		return fmt.Errorf("protobuf list: %w: the body does not start with the protobuf magic", ErrNotAList)
	}
	for {
		if _, err := p.r.Peek(1); errors.Is(err, io.EOF) {
			return nil
		}
		num, wire, err := p.tag()
		if err != nil {
			return err
		}
		if wire != kubeproto.WireBytes {
			if num <= 4 {
				return p.errorf("wire type %d for field %d of the envelope", wire, num)
			}
			if err := p.skip(wire); err != nil {
				return err
			}
			continue
		}
		n, err := p.varint()
		if err != nil {
			return err
		}
		if num == 2 {
			if !p.hasTM {
				return p.errorf("the list's raw comes before its typeMeta")
			}
			if err := p.list(n); err != nil {
				return err
			}
			continue
		}
		data, err := p.bytes(n, maxProtoMeta)
		if err != nil {
			return err
		}
		if err := p.envelopeField(num, data); err != nil {
			return err
		}
	}
}

// envelopeField applies field num of the envelope other than raw.
func (p *protoScanner) envelopeField(num uint64, data []byte) error {
	switch num {
	case 1:
		for i := 0; i < len(data); {
			wf, next, err := kubeproto.ReadField(data, i)
			if err != nil {
				return p.errorf("typeMeta: %v", err)
			}
			i = next
			switch {
			case wf.Num == 1 && wf.Wire == kubeproto.WireBytes:
				p.tm.APIVersion = string(wf.Data)
			case wf.Num == 2 && wf.Wire == kubeproto.WireBytes:
				p.tm.Kind = string(wf.Data)
			}
		}
		p.hasTM = true
	case 3:
		if len(data) != 0 {
			return p.errorf("unsupported content encoding %q", data)
		}
	}
	return nil
}

// list reads the list message of n bytes: its metadata and its items.
func (p *protoScanner) list(n uint64) error {
	end := p.read + int64(n)
	for p.read < end {
		num, wire, err := p.tag()
		if err != nil {
			return err
		}
		if wire != kubeproto.WireBytes {
			if num <= 2 {
				return p.errorf("wire type %d for field %d of the list", wire, num)
			}
			if err := p.skip(wire); err != nil {
				return err
			}
			continue
		}
		size, err := p.varint()
		if err != nil {
			return err
		}
		if p.read+int64(size) > end {
			return p.errorf("a field of %d bytes runs past the end of the list", size)
		}
		switch num {
		case 1:
			data, err := p.bytes(size, maxProtoMeta)
			if err != nil {
				return err
			}
			if p.lm, err = meta.DecodeProtobufListMeta(data); err != nil {
				return p.errorf("%v", err)
			}
		case 2:
			data, err := p.bytes(size, p.maxItem)
			if err != nil {
				return err
			}
			if err := p.each(p.tm, data); err != nil {
				return err
			}
		default:
			if _, err := p.bytes(size, p.maxItem); err != nil {
				return err
			}
		}
	}
	if p.read != end {
		return p.errorf("a field runs past the end of the list")
	}
	return nil
}

// tag reads a field's tag.
func (p *protoScanner) tag() (num uint64, wire int, err error) {
	key, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	num, wire = key>>3, int(key&7)
	if num == 0 || num > 1<<29-1 {
		return 0, 0, p.errorf("illegal tag %d", num)
	}
	return num, wire, nil
}

// varint reads a base-128 varint.
func (p *protoScanner) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := p.r.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("protobuf list at byte %d: %w", p.read, unexpected(err))
		}
		p.read++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, p.errorf("varint overflows 64 bits")
}

// bytes reads n bytes into the reused buffer; more than limit is an error
// wrapping ErrItemTooLarge, read no further.
func (p *protoScanner) bytes(n uint64, limit int) ([]byte, error) {
	if n > uint64(limit) {
		return nil, fmt.Errorf("protobuf list at byte %d: %w: %d bytes, over the limit of %d", p.read, ErrItemTooLarge, n, limit)
	}
	buf, err := ReadGrowing(p.r, p.buf, n)
	if err != nil {
		return nil, fmt.Errorf("protobuf list at byte %d: %w", p.read+int64(len(buf)), unexpected(err))
	}
	p.buf = buf
	p.read += int64(n)
	return buf, nil
}

// ReadGrowing reads n bytes from r into buf's memory (reused from its
// start), growing it a MiB at a time as the bytes arrive, so that a length
// the input does not back costs no more memory than the input. On error
// it returns what was read.
func ReadGrowing(r io.Reader, buf []byte, n uint64) ([]byte, error) {
	buf = buf[:0]
	for uint64(len(buf)) < n {
		chunk := int(min(n-uint64(len(buf)), 1<<20))
		buf = slices.Grow(buf, chunk)
		got, err := io.ReadFull(r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+got]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// skip reads past a field of a wire type other than length-delimited.
func (p *protoScanner) skip(wire int) error {
	switch wire {
	case kubeproto.WireVarint:
		_, err := p.varint()
		return err
	case kubeproto.WireFixed64, kubeproto.WireFixed32:
		n := 8
		if wire == kubeproto.WireFixed32 {
			n = 4
		}
		_, err := p.bytes(uint64(n), n)
		return err
	}
	return p.errorf("illegal wire type %d", wire)
}

// errorf reports malformed input at the current byte.
func (p *protoScanner) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.read, Msg: "protobuf list: " + fmt.Sprintf(format, args...)}
}

// unexpected turns an end of input inside the body into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
