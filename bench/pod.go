package bench

import "github.com/kubecache/kubecache/meta"

// Pod is the benchmarks' typed object: the fields of a pod a controller
// typically reads (its metadata, the node it runs on, its containers'
// names and images, its phase and conditions). Everything else in the
// server's pod is skipped by the decoder and never held.
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            PodSpec   `json:"spec"`
	Status          PodStatus `json:"status"`
}

// PodSpec is the part of a pod's spec the typed mode keeps.
type PodSpec struct {
	NodeName   string      `json:"nodeName,omitempty"`
	Containers []Container `json:"containers,omitempty"`
}

// Container is a container's name and image.
type Container struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
}

// PodStatus is the part of a pod's status the typed mode keeps.
type PodStatus struct {
	Phase      string         `json:"phase,omitempty"`
	Conditions []PodCondition `json:"conditions,omitempty"`
}

// PodCondition is one of a pod's conditions (Ready, Scheduled...).
type PodCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitzero"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
}
