// Package request is the fake API server's request and response
// plumbing: what a request asks for and how the answer is written, with
// no knowledge of the Server or of storage's internals.
//
// It sits above storage, registry, validation and apistatus and below the
// handlers in the root package.
//
// # Files
//
//   - requestinfo.go: Info and ParsePath, a URL as verb, group, version,
//     resource, namespace, name and subresource.
//   - listoptions.go: ListOptions, a list's or watch's parameters parsed
//     and validated with the real server's rules; Matches applies the
//     selectors to an object.
//   - shard.go: Shard and ParseShard, a shardSelector (shardRange calls
//     joined by ||) parsed with the real server's rules and messages, and
//     matched on the FNV-1a hash of an object's uid or namespace.
//   - negotiate.go: Negotiation, the content type, pretty printing,
//     metadata-only and Table answers a request accepts (406 otherwise).
//   - output.go: WriteBody, WriteStatus and WriteError (every Status goes
//     out through here), EncodeObject and EventEncoding, the watch event
//     encoding storage caches per change.
//   - match.go: Match, which requests (or open watches) a fault or forbid
//     rule applies to.
//   - websocket_header.go: the websocket upgrade and its subprotocols
//     (one of which may carry a bearer token).
//   - decode.go: request bodies: ReadBody, ToJSON (YAML in),
//     DecodeObject and DecodePatched (the body as the kind's Go type would
//     decode it, checked by internal/validation).
//   - convert.go: AtVersion and the write-side conversion of the kinds
//     stored at another version (builtin.Conversions).
//   - protobuf.go: protobuf request bodies (ProtobufToJSON, IsProtobuf):
//     every built-in kind read through kubeproto, custom resources refused.
//   - gzip.go: GzipThreshold and the gzip encoding of large answers, as
//     the real server's response compression.
package request
