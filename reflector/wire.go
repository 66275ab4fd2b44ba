package reflector

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// This file is the wire format of a ListerWatcher built by NewListWatch:
// which encoding it asks for (Source.Wire), how it decodes a protobuf
// response, and how the reflector's trace learns what each request got.

// Metadata-only requests in protobuf: PartialObjectMetadata in protobuf
// first, then in JSON, then the full object in protobuf (a server that
// cannot reduce objects) and in JSON.
const (
	acceptMetadataListProtobuf = rest.MediaProtobuf + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," + rest.MediaProtobuf + ",application/json"
	acceptMetadataProtobuf = rest.MediaProtobuf + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," + rest.MediaProtobuf + ",application/json"
)

// wireChoice is the encoding a ListWatch asks for, which falls back to
// JSON for good once a protobuf response names a kind the kubeproto table
// does not hold.
type wireChoice struct {
	protobuf atomic.Bool
}

// newWireChoice decides the encoding of a ListWatch for T on
// group/version: asked is Source.Wire. WireAuto is protobuf for a
// built-in API group and version (one the kubeproto table holds) when T
// decodes from protobuf by a plan of its own and watches travel over
// HTTP, JSON otherwise (custom resources, Unstructured, websockets).
// Unstructured stays on JSON because it is no faster over protobuf: it
// holds an object as JSON, which is then written from each message
// (docs/performance.md, "Unstructured over protobuf"). WireProtobuf asks
// for protobuf whatever T is.
func newWireChoice[T meta.Object](asked rest.Wire, group, version string, transport rest.WatchTransport) *wireChoice {
	c := &wireChoice{}
	apiVersion := version
	if group != "" {
		apiVersion = group + "/" + version
	}
	switch asked {
	case rest.WireProtobuf:
		c.protobuf.Store(true)
	case rest.WireAuto:
		c.protobuf.Store(transport == rest.WatchOverHTTP && kubeproto.KnownAPIVersion(apiVersion) && meta.ProtobufDecodable[T]())
	}
	return c
}

// wire is the encoding the next request asks for.
func (c *wireChoice) wire() rest.Wire {
	if c.protobuf.Load() {
		return rest.WireProtobuf
	}
	return rest.WireJSON
}

// failed records a decoding error of a protobuf response: one for a kind
// the table does not hold turns protobuf off for the requests to come.
func (c *wireChoice) failed(err error) {
	if errors.Is(err, kubeproto.ErrUnknownKind) {
		c.protobuf.Store(false)
	}
}

// protobufDecoder returns the function that turns one protobuf object
// into a T: the known object when its identity and resourceVersion match
// (fresh is false), else a new decode. apiVersion and kind name the
// object's message.
func protobufDecoder[T meta.Object](known Known[T]) func(apiVersion, kind string, message []byte) (obj T, fresh bool, err error) {
	return func(apiVersion, kind string, message []byte) (T, bool, error) {
		if known != nil {
			if p, err := meta.PeekProtobuf(message); err == nil && p.Name != "" && p.ResourceVersion != "" {
				if obj, ok := known(p.Namespace, p.Name, p.ResourceVersion); ok {
					return obj, false, nil
				}
			}
		}
		obj, err := meta.DecodeProtobuf[T](apiVersion, kind, message)
		return obj, true, err
	}
}

// listItemKind is the kind of a built-in list's items: "PodList" makes
// "Pod".
func listItemKind(list meta.TypeMeta) string {
	kind, _ := strings.CutSuffix(list.Kind, "List")
	return kind
}

// wireNoteKey carries a *rest.Encoding through a List or Watch call's
// context, so a ListerWatcher can tell the reflector's trace how the
// server encoded its answer.
type wireNoteKey struct{}

// withWireNote returns ctx carrying a fresh note, and the note.
func withWireNote(ctx context.Context) (context.Context, *rest.Encoding) {
	note := new(rest.Encoding)
	return context.WithValue(ctx, wireNoteKey{}, note), note
}

// noteWire records how a response was encoded in ctx's note, if any.
func noteWire(ctx context.Context, e rest.Encoding) {
	if note, ok := ctx.Value(wireNoteKey{}).(*rest.Encoding); ok {
		*note = e
	}
}

// WatchOpened: the server answered a WATCH request; Wire is the encoding
// of its stream and ContentEncoding the compression it came in ("gzip",
// decoded by the client: a streaming list from a server with
// WatchListCompression; "" for none). It is reported for ListerWatchers
// that tell the wire (those built by NewListWatch).
type WatchOpened struct {
	Wire            rest.Wire
	ContentEncoding string
}

func (WatchOpened) isTraceEvent() {}

// String returns e.g. "watch opened (protobuf)" or "watch opened
// (protobuf, gzip)".
func (e WatchOpened) String() string {
	return "watch opened (" + string(e.Wire) + encodingSuffix(e.ContentEncoding) + ")"
}

// encodingSuffix is ", <encoding>" for a compressed response, "" else.
func encodingSuffix(contentEncoding string) string {
	if contentEncoding == "" {
		return ""
	}
	return ", " + contentEncoding
}
