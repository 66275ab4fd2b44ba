package kit

import (
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

// OwnerKeyOf returns the key function of the objects whose controller is
// of kind: "namespace/name" of that controller, or false.
func OwnerKeyOf(kind string) func(m *meta.ObjectMeta) (string, bool) {
	return func(m *meta.ObjectMeta) (string, bool) {
		ref := api.ControllerOf(m)
		if ref == nil || ref.Kind != kind {
			return "", false
		}
		return m.Namespace + "/" + ref.Name, true
	}
}

// WatchOwnedPods registers on pods the handler every pod-owning
// controller has: a pod's creation, the start of its deletion and its
// removal are observed in expect under its owner's key (ownerKey), and
// the owner is queued; when a pod changes owner the old one is queued
// too. orphan, when not nil, is called for a pod no controller owns (so
// the controllers that might adopt it are queued).
func WatchOwnedPods(l *Loop, pods *informer.Informer[*api.Pod], expect *Expectations, ownerKey func(*meta.ObjectMeta) (string, bool), orphan func(*api.Pod)) error {
	queue := func(p *api.Pod) {
		if key, ok := ownerKey(&p.ObjectMeta); ok {
			l.Add(key)
		} else if orphan != nil && api.ControllerOf(&p.ObjectMeta) == nil {
			orphan(p)
		}
	}
	deleted := func(p *api.Pod) {
		if key, ok := ownerKey(&p.ObjectMeta); ok {
			expect.Deleted(key, meta.Key(p))
		}
	}
	return WatchWith(l, pods, informer.HandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, _ bool) {
			if key, ok := ownerKey(&p.ObjectMeta); ok {
				expect.Created(key)
			}
			if p.DeletionTimestamp != nil {
				deleted(p)
			}
			queue(p)
		},
		UpdateFunc: func(old, p *api.Pod) {
			if p.DeletionTimestamp != nil && old.DeletionTimestamp == nil {
				deleted(p)
			}
			if oldKey, ok := ownerKey(&old.ObjectMeta); ok {
				if key, _ := ownerKey(&p.ObjectMeta); key != oldKey {
					l.Add(oldKey)
				}
			}
			queue(p)
		},
		DeleteFunc: func(p *api.Pod, _ bool) {
			deleted(p)
			queue(p)
		},
	})
}
