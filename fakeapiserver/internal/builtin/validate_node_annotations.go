package builtin

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The parts of a Node the real validator reads besides its spec: the
// taints and preferAvoidPods annotations (JSON the real server decodes
// with encoding/json into its own Go types, whose decoding errors it
// quotes), the swap capacity and the declared features of its status.

const (
	taintsAnnotation     = "scheduler.alpha.kubernetes.io/taints"
	avoidPodsAnnotation  = "scheduler.alpha.kubernetes.io/preferAvoidPods"
	annotationsField     = "metadata.annotations"
	maxDeclaredFeatureLn = 253
)

// nodeDeclaredFeatureRE is the form of a declared feature: an
// UpperCamelCase segment, then segments after slashes.
var nodeDeclaredFeatureRE = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*$`)

// annotationTime decodes a timestamp as the real metav1.Time does: a
// JSON string in RFC 3339 form, or null.
type annotationTime struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (*annotationTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	_, err := time.Parse(time.RFC3339, s)
	return err
}

// Taint mirrors the real server's internal taint type, which has no
// JSON tags: its fields match keys case-insensitively, and its name is
// the one a decoding error quotes.
type Taint struct {
	Key, Value, Effect string
	TimeAdded          *annotationTime
}

// AvoidPods mirrors the core/v1 type of the preferAvoidPods annotation.
type AvoidPods struct {
	PreferAvoidPods []PreferAvoidPodsEntry `json:"preferAvoidPods,omitempty"`
}

// PreferAvoidPodsEntry mirrors the core/v1 type of one avoided pod.
type PreferAvoidPodsEntry struct {
	PodSignature PodSignature   `json:"podSignature"`
	EvictionTime annotationTime `json:"evictionTime,omitempty"`
	Reason       string         `json:"reason,omitempty"`
	Message      string         `json:"message,omitempty"`
}

// PodSignature mirrors the core/v1 type naming an avoided pod's owner.
type PodSignature struct {
	PodController *OwnerReference `json:"podController,omitempty"`
}

// OwnerReference mirrors the metav1 owner reference.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// decodeError words a decoding error as the real server's: the types it
// names are in its package pkg ("core", "v1"), not this one.
func decodeError(err error, pkg string) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return strings.ReplaceAll(te.Error(), "builtin.", pkg+".")
	}
	return err.Error()
}

// nodeAnnotations checks a Node's taints and preferAvoidPods
// annotations when they are set.
func (v *validator) nodeAnnotations(annotations map[string]string) {
	if raw := annotations[taintsAnnotation]; raw != "" {
		var taints []Taint
		if err := json.Unmarshal([]byte(raw), &taints); err != nil {
			v.invalid(annotationsField, taintsAnnotation, decodeError(err, "core"))
		} else if len(taints) > 0 {
			list := make([]*jsonv.Value, len(taints))
			for i, t := range taints {
				o := jsonv.NewObject()
				o.Set("key", jsonv.NewString(t.Key))
				o.Set("value", jsonv.NewString(t.Value))
				o.Set("effect", jsonv.NewString(t.Effect))
				list[i] = &o
			}
			v.nodeTaints(annotationsField+"."+taintsAnnotation, list)
		}
	}
	if raw := annotations[avoidPodsAnnotation]; raw != "" {
		var avoid AvoidPods
		if err := json.Unmarshal([]byte(raw), &avoid); err != nil {
			v.invalid(annotationsField+".AvoidPods", avoidPodsAnnotation, decodeError(err, "v1"))
			return
		}
		for i, e := range avoid.PreferAvoidPods {
			p := index(annotationsField+"."+avoidPodsAnnotation, i) + ".PodSignature"
			switch c := e.PodSignature.PodController; {
			case c == nil:
				v.required(p, "")
			case c.Controller != nil && !*c.Controller:
				// The real server fails the request without an answer
				// when controller is absent; the fake server lets it be.
				v.invalidRaw(p+".PodController.Controller", "false", "must point to a controller")
			}
		}
	}
}

// nodeStatusChecks checks what the real validator reads of a Node's
// status: a positive swap capacity, and declared features that are well
// formed, sorted and unique.
func (v *validator) nodeStatusChecks(status *jsonv.Value) {
	if c, ok := integer(sub(sub(status, "nodeInfo"), "swap"), "capacity"); ok && c <= 0 {
		v.add(invalidNumber("metadata.nodeSwapStatus.capacity", c, "must be greater than zero"))
	}
	v.declaredFeatures(status)
}

// declaredFeatures checks a Node's status.declaredFeatures: each name
// well formed, the list sorted and without repeats (checked on status
// writes too).
func (v *validator) declaredFeatures(status *jsonv.Value) {
	const p = "status.declaredFeatures"
	features := stringsOf(status, "declaredFeatures")
	for i, f := range features {
		switch {
		case len(f) > maxDeclaredFeatureLn:
			v.invalid(index(p, i), f, `invalid feature name `+strconv.Quote(f)+`: must be no more than 253 characters`)
		case !nodeDeclaredFeatureRE.MatchString(f):
			v.invalid(index(p, i), f, `invalid feature name `+strconv.Quote(f)+`: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes`)
		}
		if i+1 < len(features) {
			switch next := features[i+1]; {
			case f == next:
				v.duplicate(index(p, i+1), next)
			case f > next:
				v.invalid(index(p, i+1), next, "list must be sorted alphabetically")
			}
		}
	}
}
