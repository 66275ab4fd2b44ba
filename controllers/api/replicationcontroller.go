package api

import "github.com/kubecache/kubecache/meta"

// ReplicationController is a core/v1 ReplicationController, as far as
// the controllers read one: its name, UID and scale.
type ReplicationController struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas *int32 `json:"replicas,omitempty"`
	} `json:"spec"`
}

// SpecReplicas returns spec.replicas, 1 when unset (the API's default).
func (rc *ReplicationController) SpecReplicas() int32 {
	if rc.Spec.Replicas == nil {
		return 1
	}
	return *rc.Spec.Replicas
}
