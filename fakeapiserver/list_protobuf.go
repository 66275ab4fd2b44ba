package fakeapiserver

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/kubeproto"
)

// writeProtobufList sends a page as a protobuf list: the list message is
// its metadata then one field per item, each item's message encoded once
// per object version (storage.Object.Encoded) and streamed from there, as
// the JSON list streams the stored bytes. It reports false, having written
// nothing, for a kind without protobuf (custom resources: JSON instead).
func (s *Server) writeProtobufList(w http.ResponseWriter, n request.Negotiation, res *registry.Resource, version string, page listResult) bool {
	apiVersion := request.GV(res.Group, version)
	listAPIVersion, listKind, itemKind := apiVersion, res.ListKind, res.Kind
	if n.Format == request.FormatPartial {
		listAPIVersion, listKind, itemKind = "meta.k8s.io/v1", "PartialObjectMetadataList", "PartialObjectMetadata"
	}
	if res.Custom || !kubeproto.Known(listAPIVersion, listKind) {
		return false
	}
	// The list's metadata: the JSON list with no items, in protobuf.
	var head bytes.Buffer
	s.encodeListTo(&head, res, version, n.Format, listResult{rv: page.rv, cont: page.cont, remaining: page.remaining, shard: page.shard})
	meta, err := kubeproto.EncodeMessage(listAPIVersion, listKind, head.Bytes())
	if err != nil {
		return false
	}
	key := "protobuf " + itemKind + " " + apiVersion
	item := func(obj *storage.Object) []byte {
		return obj.Encoded(key, func() []byte { return protobufItem(obj, n.Format, itemKind, apiVersion) })
	}
	// The items' encodings are looked up once and kept for the write:
	// the envelope needs the total size first, and a second lookup per
	// item costs more (its cache misses) than a slice of them.
	items := make([][]byte, len(page.items))
	size := len(meta)
	for i, obj := range page.items {
		items[i] = item(obj)
		size += kubeproto.ListItemSize(len(items[i]))
	}
	h := w.Header()
	request.SetBodyHeaders(h, n)
	h.Set("Content-Type", request.MediaProtobuf)
	prefix := kubeproto.AppendEnvelopeHeader(nil, listAPIVersion, listKind, size)
	trailer := kubeproto.AppendEnvelopeTrailer(nil)
	total := len(prefix) + size + len(trailer)
	h.Set("Content-Length", strconv.Itoa(total))
	out, closer := request.CompressedWriter(w, n, total)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(out, 256<<10)
	_, _ = bw.Write(prefix)
	_, _ = bw.Write(meta)
	var tag []byte
	for _, data := range items {
		// The item's tag and length, then its bytes as stored.
		tag = kubeproto.AppendListItemHeader(tag[:0], len(data))
		_, _ = bw.Write(tag)
		_, _ = bw.Write(data)
	}
	_, _ = bw.Write(trailer)
	_ = bw.Flush()
	_ = closer.Close()
	return true
}

// protobufItem is an object's message as a list item.
func protobufItem(obj *storage.Object, format request.Format, kind, apiVersion string) []byte {
	var js []byte
	if format == request.FormatPartial {
		js = obj.AppendPartial(nil)
		apiVersion = "meta.k8s.io/v1"
	} else {
		js = request.AtVersion(obj, apiVersion).AppendObject(nil, apiVersion)
	}
	msg, err := kubeproto.EncodeMessage(apiVersion, kind, js)
	if err != nil {
		// Stored objects are valid JSON of their kind; an object the
		// codec cannot read is a bug, shown as an empty item rather
		// than a broken list.
		return nil
	}
	return msg
}
