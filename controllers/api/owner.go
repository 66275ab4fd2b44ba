package api

import "github.com/kubecache/kubecache/meta"

// ControllerOf returns the owner reference of m that has controller set,
// or nil.
func ControllerOf(m *meta.ObjectMeta) *meta.OwnerReference {
	for i := range m.OwnerReferences {
		if r := &m.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// ControllerRef returns the reference a controller of kind (in
// apiVersion) puts on the objects it makes: controller and
// blockOwnerDeletion set, as the real controllers do.
func ControllerRef(owner *meta.ObjectMeta, apiVersion, kind string) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: owner.Name, UID: owner.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

// ControllerUIDIndex is the name of the index, by controller UID, that the
// controllers add to shared informers (see IndexByController).
const ControllerUIDIndex = "kubecache.dev/controller-uid"

// ControllerUID is the index function of ControllerUIDIndex: the UID of
// the object's controller, or "" for an orphan, so that both the objects
// of one controller and the orphans a controller may adopt are one index
// lookup away.
func ControllerUID(m *meta.ObjectMeta) []string {
	if r := ControllerOf(m); r != nil {
		return []string{r.UID}
	}
	return []string{""}
}
