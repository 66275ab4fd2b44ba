package reflector

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
	"github.com/kubecache/kubecache/watch"
)

// Source says what a ListerWatcher built by NewListWatch lists and watches
// on an API server, and how its watches travel. It is comparable, so it can
// be part of a key (an informer factory shares informers by it).
type Source struct {
	// Resource names the resource and its API group and version in one of
	// three forms:
	//
	//	"pods"                  a core resource, /api/v1
	//	"deployments.v1.apps"   resource.version.group, as kubectl spells it
	//	"apps/v1/deployments"   group/version/resource ("v1/pods" for core)
	Resource string
	// Namespace restricts the lists and watches to one namespace; "" is all
	// namespaces (and the only choice for a cluster-scoped resource).
	Namespace string
	// LabelSelector and FieldSelector restrict them to matching objects, in
	// the server's syntax ("app=web,tier!=db", "metadata.name=x"). They are
	// joined with any selector the ListOptions of a call carry.
	LabelSelector string
	FieldSelector string
	// Transport is how watches receive events: chunked HTTP (the zero
	// value) or a websocket. Lists are plain requests either way.
	Transport rest.WatchTransport
	// Wire is the encoding lists and watches ask for. The zero value,
	// rest.WireAuto, asks for protobuf for a built-in kind (one the
	// kubeproto table holds) decoded into a struct type or
	// PartialObjectMetadata, watched over HTTP, and for JSON otherwise
	// (custom resources, Unstructured, websockets); rest.WireJSON and
	// rest.WireProtobuf force one (an Unstructured's JSON is then written
	// from each protobuf message, which is no faster than reading the
	// server's JSON). A server that answers JSON to a request for
	// protobuf is read as JSON; the trace reports each response's wire.
	Wire rest.Wire
}

// Metadata-only ListerWatchers ask the server for PartialObjectMetadata:
// the list form for a LIST, the object form for a WATCH, each falling back
// to the full object where the server cannot (a client must accept both).
const (
	acceptMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMetadata     = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

// NewListWatch returns a ListerWatcher for src over HTTP: LIST and WATCH
// requests built with client. It checks src first: a nil client, a resource
// that does not parse (an error wrapping rest.ErrInvalidRequest) or a
// selector that does not parse is an error naming what is wrong.
//
// List streams the response: each item is decoded into T as it is read
// from the body, and an item whose namespace, name and resourceVersion the
// known function recognises (peeked with meta.PeekMeta, without decoding)
// is not decoded at all; the known object is handed on instead. Watch
// opens the watch with rest.WatchDecoded over src.Transport and decodes
// each event once, the same way.
//
// When T is *meta.PartialObjectMetadata the ListerWatcher is metadata-only:
// every request asks the server for PartialObjectMetadata (Accept:
// application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,
// application/json, and the PartialObjectMetadataList form for lists), so
// only names, labels, owners and the rest of the metadata cross the wire.
func NewListWatch[T meta.Object](client rest.Getter, src Source) (*ListWatch[T], error) {
	if meta.IsNil(client) {
		return nil, fmt.Errorf("list-watch %s: %w: client is nil", src.Resource, ErrInvalidOptions)
	}
	group, version, resource, err := ParseResource(src.Resource)
	if err != nil {
		return nil, fmt.Errorf("list-watch: %w", err)
	}
	labels, err := selector.ParseLabels(src.LabelSelector)
	if err != nil {
		return nil, fmt.Errorf("list-watch %s: label selector: %w", src.Resource, err)
	}
	fields, err := selector.ParseFields(src.FieldSelector)
	if err != nil {
		return nil, fmt.Errorf("list-watch %s: field selector: %w", src.Resource, err)
	}
	ls, fs := labels.String(), fields.String()
	metadataOnly := isMetadata[T]()
	choice := newWireChoice[T](src.Wire, group, version, src.Transport)
	request := func(opts ListOptions, list bool) *rest.Request {
		opts.LabelSelector = joinSelectors(ls, opts.LabelSelector)
		opts.FieldSelector = joinSelectors(fs, opts.FieldSelector)
		wire := choice.wire()
		r := client.Get().Group(group).Version(version).Namespace(src.Namespace).Resource(resource).Wire(wire)
		if metadataOnly {
			r.SetHeader("Accept", metadataAccept(list, wire == rest.WireProtobuf && src.Transport == rest.WatchOverHTTP))
		}
		for k, vs := range opts.Values() {
			r.Param(k, vs[0])
		}
		return r
	}
	desc := Description{Resource: src.Resource}
	if src.Namespace != "" {
		desc.Namespaces = []string{src.Namespace}
	}
	return &ListWatch[T]{
		desc: desc,
		ListFunc: func(ctx context.Context, opts ListOptions, known Known[T], emit func(T) error) (meta.ListMeta, error) {
			decode, decodeProto := decoder(known), protobufDecoder(known)
			_, lm, wire, err := request(opts, true).ListWire(ctx, func(list meta.TypeMeta, raw []byte, wire rest.Wire) error {
				var obj T
				var fresh bool
				var err error
				if wire == rest.WireProtobuf {
					obj, fresh, err = decodeProto(list.APIVersion, listItemKind(list), raw)
					choice.failed(err)
				} else if obj, fresh, err = decode(raw); err == nil && fresh {
					itemType(obj, list)
				}
				if err != nil {
					return err
				}
				return emit(obj)
			})
			noteWire(ctx, wire)
			return lm, err
		},
		WatchFunc: func(ctx context.Context, opts ListOptions, known Known[T]) (watch.Interface[T], error) {
			decode, decodeProto := decoder(known), protobufDecoder(known)
			r := request(opts, false).Transport(src.Transport)
			w, wire, err := rest.WatchDecodedWire(ctx, r, func(raw []byte, wire rest.Wire) (T, error) {
				if wire != rest.WireProtobuf {
					obj, _, err := decode(raw)
					return obj, err
				}
				env, err := kubeproto.ParseEnvelope(raw)
				if err != nil {
					var zero T
					return zero, err
				}
				obj, _, err := decodeProto(env.APIVersion, env.Kind, env.Raw)
				choice.failed(err)
				return obj, err
			})
			noteWire(ctx, wire)
			return w, err
		},
	}, nil
}

// metadataAccept is the Accept header of a metadata-only list or watch.
func metadataAccept(list, protobuf bool) string {
	switch {
	case list && protobuf:
		return acceptMetadataListProtobuf
	case list:
		return acceptMetadataList
	case protobuf:
		return acceptMetadataProtobuf
	}
	return acceptMetadata
}

// NewListWatchFromClient is NewListWatch in the form the client-go
// article names: a ListerWatcher for resource in namespace ("" for all
// namespaces or a cluster-scoped resource), restricted by fieldSelector
// (the zero Fields selects everything), watching over chunked HTTP. It
// never fails: a resource that does not parse gives an error wrapping
// rest.ErrInvalidRequest from every List and Watch.
func NewListWatchFromClient[T meta.Object](c rest.Getter, resource, namespace string, fieldSelector selector.Fields) *ListWatch[T] {
	lw, err := NewListWatch[T](c, Source{Resource: resource, Namespace: namespace, FieldSelector: fieldSelector.String()})
	if err != nil {
		return &ListWatch[T]{
			ListFunc: func(context.Context, ListOptions, Known[T], func(T) error) (meta.ListMeta, error) {
				return meta.ListMeta{}, err
			},
			WatchFunc: func(context.Context, ListOptions, Known[T]) (watch.Interface[T], error) { return nil, err },
		}
	}
	return lw
}

// joinSelectors joins two selectors in the server's syntax, either of
// which may be empty, into one that requires both.
func joinSelectors(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// isMetadata reports whether T is the metadata-only object.
func isMetadata[T meta.Object]() bool {
	var zero T
	_, ok := any(zero).(*meta.PartialObjectMetadata)
	return ok
}

// decoder returns the function that turns one raw object into a T: the
// known object when its identity and resourceVersion match (fresh is
// false), else a new decode (fresh is true).
func decoder[T meta.Object](known Known[T]) func(raw []byte) (obj T, fresh bool, err error) {
	return func(raw []byte) (T, bool, error) {
		if known != nil {
			if p, err := meta.PeekMeta(raw); err == nil && p.Name != "" && p.ResourceVersion != "" {
				if obj, ok := known(p.Namespace, p.Name, p.ResourceVersion); ok {
					return obj, false, nil
				}
			}
		}
		obj, err := meta.Decode[T](raw)
		return obj, true, err
	}
}

// itemType gives an item of a built-in list, which carries no kind or
// apiVersion of its own, the list's: "ConfigMapList" makes "ConfigMap". An
// item that has a kind (a custom resource's) keeps it. Only a freshly
// decoded object is touched: an object reused through Known already has its
// type (or never had one) and is shared with the store's readers.
func itemType[T meta.Object](obj T, list meta.TypeMeta) {
	tm := obj.GetTypeMeta()
	if tm.Kind != "" || !strings.HasSuffix(list.Kind, "List") {
		return
	}
	tm.Kind = strings.TrimSuffix(list.Kind, "List")
	if tm.APIVersion == "" {
		tm.APIVersion = list.APIVersion
	}
}

// versionPattern matches an API version: v1, v2beta1, v1alpha3.
var versionPattern = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// ParseResource splits a resource as Source.Resource names it into
// its API group ("" for core), version and plural resource name. An input
// that fits none of the accepted forms gives an error wrapping
// rest.ErrInvalidRequest.
func ParseResource(resource string) (group, version, name string, err error) {
	bad := func(why string) (string, string, string, error) {
		return "", "", "", fmt.Errorf("%w: resource %q: %s (want \"pods\", \"deployments.v1.apps\" or \"apps/v1/deployments\")",
			rest.ErrInvalidRequest, resource, why)
	}
	if resource == "" {
		return bad("empty")
	}
	if strings.Contains(resource, "/") {
		parts := strings.Split(resource, "/")
		switch len(parts) {
		case 2:
			group, version, name = "", parts[0], parts[1]
		case 3:
			group, version, name = parts[0], parts[1], parts[2]
		default:
			return bad("too many slashes")
		}
		if !versionPattern.MatchString(version) {
			return bad(fmt.Sprintf("%q is not an API version", version))
		}
		if name == "" || strings.Contains(name, ".") {
			return bad("no resource name")
		}
		return group, version, name, nil
	}
	name, tail, dotted := strings.Cut(resource, ".")
	if name == "" {
		return bad("no resource name")
	}
	if !dotted {
		return "", "v1", name, nil
	}
	version, group, _ = strings.Cut(tail, ".")
	if !versionPattern.MatchString(version) || group == "" {
		return bad("resource.version.group needs both a version and a group")
	}
	return group, version, name, nil
}
