package api

import (
	"encoding/json"
	"fmt"

	"github.com/kubecache/kubecache/meta"
)

// ControllerRevision is an apps/v1 ControllerRevision: one pod template a
// StatefulSet or a DaemonSet has run, kept so that pods can be told apart
// by revision and a rollout undone.
type ControllerRevision struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            json.RawMessage `json:"data,omitempty"`
	Revision        int64           `json:"revision"`
}

// ControllerRevisionHashKey is the label holding a ControllerRevision's
// hash, the suffix of its name.
const ControllerRevisionHashKey = "controller.kubernetes.io/hash"

// revisionData is what a ControllerRevision holds: a strategic merge
// patch that replaces the owner's pod template, which is what kubectl
// rollout undo applies.
type revisionData struct {
	Spec struct {
		Template json.RawMessage `json:"template"`
	} `json:"spec"`
}

// RevisionData returns the data of a ControllerRevision for template.
func RevisionData(template *PodTemplate) (json.RawMessage, error) {
	t, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, err
	}
	m["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": m}})
}

// Template returns the pod template a ControllerRevision holds.
func (r *ControllerRevision) Template() (PodTemplate, error) {
	var d revisionData
	var t PodTemplate
	if err := json.Unmarshal(r.Data, &d); err != nil {
		return t, fmt.Errorf("revision %s: %w", r.Name, err)
	}
	if err := json.Unmarshal(d.Spec.Template, &t); err != nil {
		return t, fmt.Errorf("revision %s template: %w", r.Name, err)
	}
	return t, nil
}
