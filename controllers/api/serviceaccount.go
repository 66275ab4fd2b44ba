package api

import "github.com/kubecache/kubecache/meta"

// ServiceAccount is a core/v1 ServiceAccount.
type ServiceAccount struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

// ConfigMap is a core/v1 ConfigMap, as the root CA publisher writes it.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// Namespace is the part of a core/v1 Namespace controllers read.
type Namespace struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status,omitzero"`
}
