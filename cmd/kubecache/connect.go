package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/internal/cliprint"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// session is a connection to one API server: the client, the server's URL
// and the namespace of the kubeconfig context.
type session struct {
	client *rest.Client
	host   string
	// namespace is the context's namespace, or "default".
	namespace string
}

// errNoConfig is returned when there is neither a kubeconfig nor an
// in-cluster configuration.
var errNoConfig = errors.New(`no kubeconfig found: set --kubeconfig or $KUBECONFIG, or start a fake server with "kubecache serve --kubeconfig-out FILE" (no cluster at all? try "kubecache demo")`)

// connect builds a client the way kubectl finds its cluster: --kubeconfig,
// else $KUBECONFIG, else ~/.kube/config, and inside a pod its service
// account.
func (a *app) connect(cf clusterFlags) (*session, error) {
	cfg, err := rest.LoadKubeconfig(rest.KubeconfigOptions{Path: cf.kubeconfig, Context: cf.context})
	if errors.Is(err, rest.ErrNoKubeconfig) && cf.kubeconfig == "" && cf.context == "" {
		var inErr error
		cfg, inErr = rest.InClusterConfig()
		if errors.Is(inErr, rest.ErrNotInCluster) {
			return nil, errNoConfig
		}
		err = inErr
	}
	if errors.Is(err, rest.ErrContextNotFound) && cf.context != "" {
		return nil, &contextError{name: cf.context, err: err}
	}
	if err != nil {
		return nil, err
	}
	cfg.Timeout = cf.requestTimeout
	if cf.requestTimeout == 0 {
		cfg.Timeout = -1
	}
	client, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	ns := cfg.Namespace
	if ns == "" {
		ns = "default"
	}
	return &session{client: client, host: cfg.Host, namespace: ns}, nil
}

// contextError is a --context that names no context of the kubeconfig.
type contextError struct {
	name string
	err  error
}

func (e *contextError) Error() string { return fmt.Sprintf("context %q does not exist", e.name) }
func (e *contextError) Unwrap() error { return e.err }

// close releases the session's idle connections.
func (s *session) close() { s.client.CloseIdleConnections() }

// wrap marks err as met while talking to the server, so that a network
// failure is reported with the server's URL.
func (s *session) wrap(err error) error {
	if err == nil {
		return nil
	}
	return &serverError{URL: s.host, Err: err}
}

// target is a resource resolved through discovery, ready to be listed,
// watched and printed.
type target struct {
	api rest.APIResource
	// resource is the form the reflector takes: "v1/pods",
	// "apps/v1/deployments".
	resource string
	// namespace is the namespace to list, "" for all namespaces or a
	// cluster-scoped resource.
	namespace string
	// allNamespaces is -A on a namespaced resource.
	allNamespaces bool
	print         cliprint.Resource
}

// where says where the target lists, as kubectl's "No resources found in
// default namespace." does.
func (t target) where() string {
	if t.namespace == "" {
		return ""
	}
	return " in " + t.namespace + " namespace"
}

// openListWatch connects with cf, resolves word (warnings go to con) and
// returns the ListerWatcher of the target's objects, restricted by lf's
// selectors, to the object called name when name is set, and watching over
// transport. The caller closes the session.
func (a *app) openListWatch(ctx context.Context, con *console, cf clusterFlags, lf listFlags, word, name string, transport rest.WatchTransport) (*session, target, reflector.ListerWatcher[*meta.Unstructured], error) {
	s, err := a.connect(cf)
	if err != nil {
		return nil, target{}, nil, err
	}
	t, err := s.resolve(ctx, word, cf, func(msg string) { con.errf("%s", msg) })
	if err != nil {
		s.close()
		return nil, target{}, nil, err
	}
	fields := lf.fieldSelector
	if name != "" {
		fields = strings.Trim(fields+",metadata.name="+selector.EscapeFieldValue(name), ",")
	}
	lw, err := reflector.NewListWatch[*meta.Unstructured](s.client, reflector.Source{
		Resource: t.resource, Namespace: t.namespace, LabelSelector: lf.selector, FieldSelector: fields,
		Transport: transport,
	})
	if err != nil {
		s.close()
		return nil, target{}, nil, err
	}
	return s, t, lw, nil
}

// resolve finds the resource the user means by word ("po", "deploy",
// "deployments.apps", a custom resource's plural) through the server's
// discovery documents, checks that it can be listed and watched, and reads
// a custom resource's printer columns. Warnings go to warn.
func (s *session) resolve(ctx context.Context, word string, cf clusterFlags, warn func(string)) (target, error) {
	disc, err := s.client.Discover(ctx)
	if err != nil {
		return target{}, s.wrap(err)
	}
	api, err := disc.Resolve(word)
	if err != nil {
		return target{}, err
	}
	for _, verb := range []string{"list", "watch"} {
		if len(api.Verbs) > 0 && !slices.Contains(api.Verbs, verb) {
			return target{}, fmt.Errorf("the server does not allow %q on %q (its verbs: %s)", verb, api.GroupResource(), strings.Join(api.Verbs, ", "))
		}
	}
	t := target{api: api, resource: api.Version + "/" + api.Resource}
	if api.Group != "" {
		t.resource = api.Group + "/" + t.resource
	}
	if api.Namespaced {
		switch {
		case cf.allNamespaces:
			t.allNamespaces = true
		case cf.namespace != "":
			t.namespace = cf.namespace
		default:
			t.namespace = s.namespace
		}
	}
	t.print = cliprint.Resource{Group: api.Group, Version: api.Version, Resource: api.Resource, Kind: api.Kind, Namespaced: api.Namespaced}
	if strings.Contains(api.Group, ".") {
		// Only custom resources (whose groups have a dot) have a
		// CustomResourceDefinition; for the rest the lookup is a 404.
		cols, err := s.printerColumns(ctx, api)
		if err != nil {
			warn("warning: " + err.Error())
		}
		t.print.Columns = cols
	}
	return t, nil
}

// printerColumns reads a custom resource's additionalPrinterColumns from
// its CustomResourceDefinition. A resource that has none (an aggregated
// API) or a CRD that cannot be read gives no columns: the table is then
// NAME and AGE.
func (s *session) printerColumns(ctx context.Context, api rest.APIResource) ([]cliprint.Column, error) {
	var crd meta.Unstructured
	err := s.client.Get().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").
		Name(api.Resource + "." + api.Group).Do(ctx).Into(&crd)
	if err != nil {
		return nil, nil
	}
	return cliprint.ColumnsFromCRD(&crd, api.Version)
}
