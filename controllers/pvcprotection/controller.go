package pvcprotection

import (
	"context"
	"slices"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name in logs.
const Name = "persistentvolumeclaim-protection-controller"

// Finalizer is the finalizer that protects a claim in use.
const Finalizer = "kubernetes.io/pvc-protection"

// Controller is the claim protection controller. Build it with New, run
// it with Run.
type Controller struct {
	env    kit.Env
	loop   *kit.Loop
	claims *informer.Informer[*api.PersistentVolumeClaim]
	pods   *informer.Informer[*api.Pod]
}

// New builds the controller on env's shared informers and registers its
// handlers. The caller runs env.Factory.
func New(env kit.Env) (*Controller, error) {
	c := &Controller{}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.claims = kit.Inform[*api.PersistentVolumeClaim](w, "persistentvolumeclaims")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	kit.On(w, c.claims, func(cl *api.PersistentVolumeClaim) []string {
		if (cl.DeletionTimestamp == nil) != slices.Contains(cl.Finalizers, Finalizer) {
			// Being deleted with the finalizer, or live without it.
			return []string{cl.Namespace + "/" + cl.Name}
		}
		return nil
	})
	// A pod that goes (or changes) may release the claims it mounted.
	kit.On(w, c.pods, func(p *api.Pod) []string {
		var keys []string
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				keys = append(keys, p.Namespace+"/"+v.PersistentVolumeClaim.ClaimName)
			}
		}
		return keys
	})
	return kit.Built(c, w)
}

// Run reconciles claims until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 2) }

// sync gives the claim key the protection finalizer if it lacks it and
// is not being deleted, and removes the finalizer if it is being deleted
// and no scheduled pod mounts it.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	claim, err := c.claims.Lister().Namespace(ns).Get(name)
	if err != nil {
		return nil
	}
	protected := slices.Contains(claim.Finalizers, Finalizer)
	switch {
	case claim.DeletionTimestamp == nil && !protected:
		return c.setFinalizers(ctx, claim, append(slices.Clone(claim.Finalizers), Finalizer))
	case claim.DeletionTimestamp == nil || !protected:
		return nil
	}
	used := func(pods []*api.Pod) bool {
		return slices.ContainsFunc(pods, func(p *api.Pod) bool { return p.Spec.NodeName != "" && p.Spec.UsesClaim(name) })
	}
	if used(c.pods.Lister().Namespace(ns).List(selector.Everything())) {
		return nil
	}
	var live struct {
		Items []*api.Pod `json:"items"`
	}
	if err := c.env.Client.Get().Namespace(ns).Resource("pods").Do(ctx).Into(&live); err != nil {
		return err
	}
	if used(live.Items) {
		return nil
	}
	return c.setFinalizers(ctx, claim, slices.DeleteFunc(slices.Clone(claim.Finalizers), func(f string) bool { return f == Finalizer }))
}

// setFinalizers writes claim's finalizers, at the resourceVersion the
// cache shows, so a claim changed meanwhile is looked at again.
func (c *Controller) setFinalizers(ctx context.Context, claim *api.PersistentVolumeClaim, finalizers []string) error {
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": claim.ResourceVersion, "finalizers": finalizers}}
	err := kit.MergePatch(ctx, c.env.Client, kit.Target{Resource: "persistentvolumeclaims", Namespace: claim.Namespace, Name: claim.Name}, "", patch, nil)
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}
