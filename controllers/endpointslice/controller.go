package endpointslice

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/selector"
)

// Name is the controller's name.
const Name = "endpointslice-controller"

// The labels of a managed EndpointSlice.
const (
	ServiceNameLabel = "kubernetes.io/service-name"
	ManagedByLabel   = "endpointslice.kubernetes.io/managed-by"
	managedBy        = "endpointslice-controller.k8s.io"
)

// Controller keeps each Service's EndpointSlice.
type Controller struct {
	env      kit.Env
	loop     *kit.Loop
	services *informer.Informer[*api.Service]
	slices   *informer.Informer[*api.EndpointSlice]
	pods     *informer.Informer[*api.Pod]

	// mu guards created: per Service key, the name of the slice this
	// controller created that its informer has not shown yet, so that a
	// sync in between reads it from the server instead of creating a
	// second one.
	mu      sync.Mutex
	created map[string]string
}

// New builds the controller on env's shared informers.
func New(env kit.Env) (*Controller, error) {
	c := &Controller{created: map[string]string{}}
	w := kit.Begin(env, Name, c.sync)
	c.env, c.loop = w.Env(), w.Loop()
	c.services = kit.Inform[*api.Service](w, "services")
	c.slices = kit.Inform[*api.EndpointSlice](w, "endpointslices.v1.discovery.k8s.io")
	c.pods = kit.Inform[*api.Pod](w, "pods")
	sliceKey := func(s *api.EndpointSlice) []string {
		if name := s.Labels[ServiceNameLabel]; name != "" && s.Labels[ManagedByLabel] == managedBy {
			return []string{s.Namespace + "/" + name}
		}
		return nil
	}
	kit.On(w, c.services, kit.SelfKey[*api.Service])
	kit.On(w, c.slices, sliceKey)
	kit.On(w, c.pods, c.servicesOf)
	return kit.Built(c, w)
}

// Run reconciles Services until ctx is cancelled.
func (c *Controller) Run(ctx context.Context) error { return c.loop.Run(ctx, 5) }

// servicesOf returns the keys of the Services that select p.
func (c *Controller) servicesOf(p *api.Pod) []string {
	var keys []string
	for _, s := range c.services.Lister().Namespace(p.Namespace).List(selector.Everything()) {
		if len(s.Spec.Selector) > 0 && matches(s.Spec.Selector, p.Labels) {
			keys = append(keys, meta.Key(s))
		}
	}
	return keys
}

func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// sync makes the Service key's EndpointSlice list its pods.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	svc, err := c.services.Lister().Namespace(ns).Get(name)
	if err != nil || len(svc.Spec.Selector) == 0 || svc.DeletionTimestamp != nil {
		c.mu.Lock()
		delete(c.created, key)
		c.mu.Unlock()
		return nil
	}
	var pods []*api.Pod
	for _, p := range c.pods.Lister().Namespace(ns).List(selector.Everything()) {
		if matches(svc.Spec.Selector, p.Labels) && p.Status.PodIP != "" && !api.IsPodTerminal(p) {
			pods = append(pods, p)
		}
	}
	slices.SortFunc(pods, func(a, b *api.Pod) int { return strings.Compare(a.Name, b.Name) })
	want := desired(svc, pods)

	var mine []*api.EndpointSlice
	for _, s := range c.slices.Lister().Namespace(ns).List(selector.Everything()) {
		if s.Labels[ServiceNameLabel] == name && s.Labels[ManagedByLabel] == managedBy {
			mine = append(mine, s)
		}
	}
	t := kit.Target{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Namespace: ns}
	if len(mine) == 0 {
		mine, err = c.unseen(ctx, key, t)
		if err != nil {
			return err
		}
	} else {
		c.mu.Lock()
		delete(c.created, key)
		c.mu.Unlock()
	}
	if len(mine) == 0 {
		var made api.EndpointSlice
		if err := kit.Create(ctx, c.env.Client, t, want, &made); err != nil {
			return err
		}
		c.mu.Lock()
		c.created[key] = made.Name
		c.mu.Unlock()
		return nil
	}
	slices.SortFunc(mine, func(a, b *api.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	cur := mine[0]
	for _, extra := range mine[1:] {
		t := t
		t.Name = extra.Name
		if err := kit.Delete(ctx, c.env.Client, t, extra.UID, nil); err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	if reflect.DeepEqual(cur.Endpoints, want.Endpoints) && reflect.DeepEqual(cur.Ports, want.Ports) && cur.AddressType == want.AddressType {
		return nil
	}
	next := *want
	next.ObjectMeta = cur.ObjectMeta
	next.ManagedFields = nil
	t.Name = cur.Name
	return c.env.Client.Put().Group("discovery.k8s.io").Version("v1").Namespace(ns).Resource("endpointslices").Name(cur.Name).Body(&next).Do(ctx).Error()
}

// unseen returns the slice this controller created for the Service key
// that its informer does not show yet, read from the server; none when it
// created none or the slice is gone.
func (c *Controller) unseen(ctx context.Context, key string, t kit.Target) ([]*api.EndpointSlice, error) {
	c.mu.Lock()
	name := c.created[key]
	c.mu.Unlock()
	if name == "" {
		return nil, nil
	}
	var got api.EndpointSlice
	err := c.env.Client.Get().Group(t.Group).Version(t.Version).Namespace(t.Namespace).Resource(t.Resource).Name(name).Do(ctx).Into(&got)
	switch {
	case rest.IsNotFound(err):
		c.mu.Lock()
		delete(c.created, key)
		c.mu.Unlock()
		return nil, nil
	case err != nil:
		return nil, err
	}
	return []*api.EndpointSlice{&got}, nil
}

// desired is the EndpointSlice svc should have for pods.
func desired(svc *api.Service, pods []*api.Pod) *api.EndpointSlice {
	yes := true
	es := &api.EndpointSlice{
		TypeMeta: meta.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: meta.ObjectMeta{
			GenerateName:    svc.Name + "-",
			Namespace:       svc.Namespace,
			Labels:          map[string]string{ServiceNameLabel: svc.Name, ManagedByLabel: managedBy},
			OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID, Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		AddressType: "IPv4",
		Endpoints:   []api.Endpoint{},
		Ports:       []api.EndpointPort{},
	}
	for _, p := range pods {
		ready := api.IsPodReady(p) && p.DeletionTimestamp == nil
		serving := api.IsPodReady(p)
		terminating := p.DeletionTimestamp != nil
		es.Endpoints = append(es.Endpoints, api.Endpoint{
			Addresses:  []string{p.Status.PodIP},
			Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
			NodeName:   p.Spec.NodeName,
			TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
		})
	}
	if len(pods) == 0 {
		// With no endpoints the slice is a placeholder without ports, as
		// the real controller's is: ports come from the pods.
		es.Ports = nil
		return es
	}
	for _, sp := range svc.Spec.Ports {
		name, proto := sp.Name, sp.Protocol
		if proto == "" {
			proto = "TCP"
		}
		port := resolvePort(sp, pods)
		es.Ports = append(es.Ports, api.EndpointPort{Name: &name, Protocol: &proto, Port: &port})
	}
	return es
}

// resolvePort is the target port of sp: a number as it is, a name looked
// up in the first pod's container ports, the Service port when unset.
func resolvePort(sp api.ServicePort, pods []*api.Pod) int32 {
	tp := sp.TargetPort
	switch {
	case tp == nil || (!tp.IsString && tp.Int == 0):
		return sp.Port
	case !tp.IsString:
		return tp.Int
	}
	for _, p := range pods {
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == tp.Str {
					return cp.ContainerPort
				}
			}
		}
	}
	return sp.Port
}
