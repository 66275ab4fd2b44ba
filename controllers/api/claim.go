package api

import (
	"encoding/json"

	"github.com/kubecache/kubecache/meta"
)

// PersistentVolumeClaim is a core/v1 PersistentVolumeClaim. Its spec is
// carried as the server sent it: a StatefulSet copies it from its claim
// templates without reading it.
type PersistentVolumeClaim struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            json.RawMessage `json:"spec,omitempty"`
}
