package reflector

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
	"github.com/kubecache/kubecache/watch"
)

// NewListWatchFromClient returns a ListerWatcher for one resource over HTTP:
// LIST and WATCH requests built with c, in namespace ("" for all namespaces
// or a cluster-scoped resource), restricted by fieldSelector (the zero
// Fields selects everything).
//
// resource names the resource and its API group and version in one of
// three forms:
//
//	"pods"                  a core resource, /api/v1
//	"deployments.v1.apps"   resource.version.group, as kubectl spells it
//	"apps/v1/deployments"   group/version/resource ("v1/pods" for core)
//
// A resource that fits none of them gives an error wrapping
// rest.ErrInvalidRequest from every List and Watch.
//
// List streams the response: each item is decoded into T as it is read
// from the body, and an item whose namespace, name and resourceVersion the
// known function recognises (peeked with meta.PeekMeta, without decoding)
// is not decoded at all; the known object is handed on instead. Watch
// decodes each event once, the same way.
func NewListWatchFromClient[T meta.Object](c rest.Getter, resource, namespace string, fieldSelector selector.Fields) *ListWatch[T] {
	group, version, res, perr := ParseResource(resource)
	fields := fieldSelector.String()
	request := func(opts ListOptions) (*rest.Request, error) {
		if perr != nil {
			return nil, perr
		}
		if fields != "" {
			if opts.FieldSelector != "" {
				opts.FieldSelector = fields + "," + opts.FieldSelector
			} else {
				opts.FieldSelector = fields
			}
		}
		r := c.Get().Group(group).Version(version).Namespace(namespace).Resource(res)
		for k, vs := range opts.Values() {
			r.Param(k, vs[0])
		}
		return r, nil
	}
	return &ListWatch[T]{
		ListFunc: func(ctx context.Context, opts ListOptions, known Known[T], emit func(T) error) (meta.ListMeta, error) {
			r, err := request(opts)
			if err != nil {
				return meta.ListMeta{}, err
			}
			decode := decoder(known)
			_, lm, err := r.ListItems(ctx, func(list meta.TypeMeta, raw []byte) error {
				obj, fresh, err := decode(raw)
				if err != nil {
					return err
				}
				if fresh {
					itemType(obj, list)
				}
				return emit(obj)
			})
			return lm, err
		},
		WatchFunc: func(ctx context.Context, opts ListOptions, known Known[T]) (watch.Interface[T], error) {
			r, err := request(opts)
			if err != nil {
				return nil, err
			}
			body, err := r.Param("watch", "true").Stream(ctx)
			if err != nil {
				return nil, err
			}
			decode := decoder(known)
			return watch.NewStreamWatcher(ctx, body, func(raw []byte) (T, error) {
				obj, _, err := decode(raw)
				return obj, err
			}, watch.DecoderOptions{MaxFrameSize: r.MaxWatchFrameBytes()}), nil
		},
	}
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

// ParseResource splits a resource as NewListWatchFromClient accepts it into
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
