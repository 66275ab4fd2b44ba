// Package meta is kubecache's object model: what every Kubernetes object
// has in common, how an object is decoded, and what an API error says.
//
// Where it sits: everything else builds on it. The watch package decodes
// each event's object into a meta.Object; the reflector tracks
// resourceVersions through ObjectMeta; the cache keys objects with Key; the
// rest package turns error bodies into Status and classifies them.
//
//	socket → rest → watch (frame → PeekMeta / Decode[T]) → reflector → cache → informer
//
// # Declaring a type
//
// A type the cache can hold embeds TypeMeta with the tag `json:",inline"`
// and ObjectMeta with the tag `json:"metadata"`, plus whatever spec and
// status fields the program needs (see the package Example). Its pointer
// then implements Object. CheckType catches the two declaration mistakes
// that would otherwise decode metadata as empty. For objects without a Go
// type there is Unstructured; for metadata only, PartialObjectMetadata.
//
// Objects handed out by caches are shared and must not be modified; Clone
// makes a private copy.
//
// # Memory
//
// A decoded object shares what repeats across objects and cannot change:
// short strings (namespaces, label keys and values, images) through the
// intern table, and the field sets of metadata.managedFields (FieldsV1),
// which objects made by one controller have in common, stored once each.
// Both are immutable strings, so sharing them never lets one object's
// change show in another.
//
// # Files
//
//	types.go          TypeMeta, ObjectMeta, OwnerReference, ListMeta
//	delete_options.go DeleteOptions and Preconditions, the body of a delete
//	managed_fields.go ManagedFields, ManagedFieldsEntry, FieldsV1 (field sets shared between objects)
//	object.go         the Object interface, New, Decode, Key, IsNil
//	intern.go         the table that shares the bytes of short repeated strings
//	check.go          CheckType: is a user type declared so that it decodes?
//	time.go           Time, the API's second-precision RFC 3339 timestamp
//	status.go         Status, the API error body, with its reasons and causes
//	classify.go       Status.IsGone, IsNotFound, IsConflict...: classification by code and reason
//	list.go           List[T], a list response
//	partial.go        PartialObjectMetadata and its list: metadata only
//	unstructured.go   Unstructured: any object, metadata decoded, the rest kept as JSON
//	unstructured_fields.go  Field, SetField, Object...: reading and editing the rest on demand
//	clone.go          Clone, the deep copy for objects from a cache
//
// The fast paths, each the hand-tuned form of something encoding/json
// does, with its reason and its benchmark at the top of the file. Their
// results equal the plain version's (fuzz targets compare them); a first
// reading can skip them:
//
//	fast_peek.go            PeekMeta: kind, name, namespace, resourceVersion without decoding
//	fast_decode_struct.go   Decode's one-pass decoder for user types: the plan built per type
//	fast_decode_scalars.go  its leaf decoders (strings, numbers, Time, the hand-off to encoding/json)
//	fast_metadata_codec.go  the hand-written ObjectMeta codec behind Unstructured and PartialObjectMetadata
//	fast_scan.go            the validating JSON scanner under all of the above; SyntaxError
//
// The protobuf path, for built-in kinds a server sends in the Kubernetes
// protobuf encoding: the same objects Decode gives for the server's JSON
// (tests compare every fixture of the kubeproto table), decoded by a plan
// per (type, message) from the kubeproto table:
//
//	protobuf_decode.go      DecodeProtobuf, DecodeProtobufBody, ProtobufDecodable; the plan
//	protobuf_values.go      the walk over a message and its leaf decoders
//	protobuf_identity.go    ObjectMeta's name, uid and resourceVersion, decoded into one allocation
//	protobuf_peek.go        PeekProtobuf, DecodeProtobufListMeta
//	protobuf_unstructured.go  Unstructured from protobuf: metadata by the plan, the rest written as JSON
//	protobuf_json.go        the protobuf-to-JSON writer behind it, byte for byte kubeproto's conversion
//	protobuf_json_cache.go  its cache of whole messages that repeat from object to object
package meta
