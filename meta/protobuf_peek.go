package meta

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/kubecache/kubecache/kubeproto"
)

// PeekProtobuf reads metadata's namespace, name, resourceVersion and uid
// from an object's bare protobuf message without decoding anything else:
// the protobuf form of PeekMeta. The metadata of every object message is
// its field 1 (ObjectMeta: name 1, namespace 3, uid 5, resourceVersion 6);
// other fields are skipped by their lengths. Kind and apiVersion travel
// outside the message and are left empty.
func PeekProtobuf(message []byte) (PeekedMeta, error) {
	var p PeekedMeta
	md, err := lastBytesField(message, 1)
	if err != nil || md == nil {
		return p, err
	}
	for i := 0; i < len(md); {
		wf, next, err := kubeproto.ReadField(md, i)
		if err != nil {
			return PeekedMeta{}, fmt.Errorf("peek protobuf metadata: %w", err)
		}
		i = next
		if wf.Wire != kubeproto.WireBytes {
			continue
		}
		switch wf.Num {
		case 1:
			p.Name = protoString(wf.Data)
		case 3:
			p.Namespace = internProtoString(wf.Data)
		case 5:
			p.UID = protoString(wf.Data)
		case 6:
			p.ResourceVersion = protoString(wf.Data)
		}
	}
	return p, nil
}

// lastBytesField returns the data of the last length-delimited field num
// of message, or nil.
func lastBytesField(message []byte, num uint64) ([]byte, error) {
	var out []byte
	for i := 0; i < len(message); {
		wf, next, err := kubeproto.ReadField(message, i)
		if err != nil {
			return nil, fmt.Errorf("peek protobuf: %w", err)
		}
		i = next
		if wf.Num == num && wf.Wire == kubeproto.WireBytes {
			out = wf.Data
		}
	}
	return out, nil
}

// listMetaMessage is the table's ListMeta.
const listMetaMessage = "meta/v1.ListMeta"

// DecodeProtobufListMeta decodes a list message's metadata (its field 1,
// a ListMeta message given here without its tag) into a ListMeta.
func DecodeProtobufListMeta(data []byte) (ListMeta, error) {
	var lm ListMeta
	m, ok := kubeproto.MessageNamed(listMetaMessage)
	if !ok {
		return lm, fmt.Errorf("decode ListMeta from protobuf: %w: %s", kubeproto.ErrUnknownKind, listMetaMessage)
	}
	p := protoPlanFor(reflect.TypeFor[ListMeta](), m)
	if p == nil {
		return lm, fmt.Errorf("decode ListMeta from protobuf: no plan")
	}
	if err := p.decode(data, unsafe.Pointer(&lm), 0); err != nil {
		return ListMeta{}, fmt.Errorf("decode ListMeta from protobuf: %w", err)
	}
	return lm, nil
}
