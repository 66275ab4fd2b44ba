package serviceaccount

import (
	"context"
	"maps"

	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Name is the controller's name.
const Name = "serviceaccount-controller"

// The objects the controller keeps in every namespace.
const (
	DefaultServiceAccount = "default"
	RootCAConfigMap       = "kube-root-ca.crt"
)

// Options configure a Controller.
type Options struct {
	// RootCA is the PEM bundle published as kube-root-ca.crt; empty
	// publishes nothing.
	RootCA string
}

// Controller keeps the default ServiceAccount (and kube-root-ca.crt) in
// every namespace.
type Controller struct {
	env  kit.Env
	opts Options
	loop *kit.Loop
	nss  *informer.Informer[*api.Namespace]
	sas  *informer.Informer[*api.ServiceAccount]
	cms  *informer.Informer[*api.ConfigMap]
}

// New builds the controller on env's shared informers.
func New(env kit.Env, opts Options) (*Controller, error) {
	c := &Controller{opts: opts}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.nss = kit.Inform[*api.Namespace](w, "namespaces")
	c.sas = kit.Inform[*api.ServiceAccount](w, "serviceaccounts")
	kit.On(w, c.nss, func(ns *api.Namespace) []string { return []string{ns.Name} })
	kit.On(w, c.sas, func(sa *api.ServiceAccount) []string { return []string{sa.Namespace} })
	if opts.RootCA != "" {
		c.cms = kit.Inform[*api.ConfigMap](w, "configmaps")
		kit.On(w, c.cms, func(cm *api.ConfigMap) []string { return []string{cm.Namespace} })
	}
	return kit.Built(c, w)
}

// Run reconciles namespaces until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 2) }

// sync makes namespace ns hold its default ServiceAccount and root CA.
func (c *Controller) sync(ctx context.Context, ns string) error {
	n, err := c.nss.Lister().Get(ns)
	if err != nil || n.DeletionTimestamp != nil || n.Status.Phase == "Terminating" {
		return nil
	}
	if _, err := c.sas.Lister().Namespace(ns).Get(DefaultServiceAccount); err != nil {
		sa := &api.ServiceAccount{
			TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: meta.ObjectMeta{Name: DefaultServiceAccount, Namespace: ns},
		}
		err := kit.Create(ctx, c.env.Client, kit.Target{Resource: "serviceaccounts", Namespace: ns}, sa, nil)
		if err != nil && !rest.IsAlreadyExists(err) && !isTerminating(err) {
			return err
		}
	}
	if c.cms == nil {
		return nil
	}
	want := map[string]string{"ca.crt": c.opts.RootCA}
	cur, err := c.cms.Lister().Namespace(ns).Get(RootCAConfigMap)
	if err != nil {
		cm := &api.ConfigMap{
			TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta.ObjectMeta{Name: RootCAConfigMap, Namespace: ns, Annotations: map[string]string{"kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."}},
			Data:       want,
		}
		err := kit.Create(ctx, c.env.Client, kit.Target{Resource: "configmaps", Namespace: ns}, cm, nil)
		if err != nil && !rest.IsAlreadyExists(err) && !isTerminating(err) {
			return err
		}
		return nil
	}
	if maps.Equal(cur.Data, want) {
		return nil
	}
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": cur.ResourceVersion}, "data": want}
	return kit.MergePatch(ctx, c.env.Client, kit.Target{Resource: "configmaps", Namespace: ns, Name: RootCAConfigMap}, "", patch, nil)
}

// isTerminating reports a create refused because the namespace is being
// deleted.
func isTerminating(err error) bool { return rest.IsForbidden(err) }
