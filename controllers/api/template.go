package api

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"

	"github.com/kubecache/kubecache/meta"
)

// PodTemplateHashLabel is the label a Deployment puts on the ReplicaSets
// it makes, on their selectors and on their pod templates: the hash of
// the pod template that ReplicaSet runs.
const PodTemplateHashLabel = "pod-template-hash"

// PodTemplate is a pod template: the metadata and spec every pod of a
// workload starts from. The spec is kept as the server sent it, so
// fields no controller reads are copied to the pods unchanged.
type PodTemplate struct {
	Metadata meta.ObjectMeta `json:"metadata,omitzero"`
	Spec     json.RawMessage `json:"spec,omitempty"`
}

// PodSpec decodes the template's spec into the fields this package
// knows.
func (t *PodTemplate) PodSpec() (PodSpec, error) {
	var s PodSpec
	if len(t.Spec) == 0 {
		return s, nil
	}
	err := json.Unmarshal(t.Spec, &s)
	return s, err
}

// canonical returns a byte form of t that is equal for equal templates
// whatever the key order of the server's JSON, without the label
// PodTemplateHashLabel.
func (t *PodTemplate) canonical() ([]byte, error) {
	m := t.Metadata
	if _, ok := m.Labels[PodTemplateHashLabel]; ok {
		m.Labels = maps.Clone(m.Labels)
		delete(m.Labels, PodTemplateHashLabel)
		if len(m.Labels) == 0 {
			m.Labels = nil
		}
	}
	md, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var spec any
	if len(t.Spec) > 0 {
		d := json.NewDecoder(bytes.NewReader(t.Spec))
		d.UseNumber()
		if err := d.Decode(&spec); err != nil {
			return nil, fmt.Errorf("pod template spec: %w", err)
		}
	}
	sd, err := json.Marshal(spec) // map keys come out sorted
	if err != nil {
		return nil, err
	}
	return append(append(md, '\n'), sd...), nil
}

// EqualIgnoringHash reports whether two templates are the same apart
// from the pod-template-hash label: how a Deployment recognises the
// ReplicaSet that already runs its template.
func EqualIgnoringHash(a, b *PodTemplate) bool {
	ca, err1 := a.canonical()
	cb, err2 := b.canonical()
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// hashAlphabet is the alphabet of generated names and template hashes:
// no vowels, no look-alike digits.
const hashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash returns the pod-template-hash of t: an FNV-32a hash of the
// template (and of collisionCount when set, which a Deployment raises to
// get a new name after a collision), written as its decimal digits
// mapped onto the name alphabet, as the real controller writes it. The
// hashed bytes are kubecache's canonical JSON, so the value differs from
// a real cluster's for the same template; its form does not.
func TemplateHash(t *PodTemplate, collisionCount *int32) string {
	h := fnv.New32a()
	c, err := t.canonical()
	if err != nil {
		c = append([]byte(nil), t.Spec...)
	}
	h.Write(c)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	digits := fmt.Sprint(h.Sum32())
	out := make([]byte, len(digits))
	for i := range len(digits) {
		out[i] = hashAlphabet[int(digits[i])%len(hashAlphabet)]
	}
	return string(out)
}

// SpecMap decodes the template's spec as a JSON object, numbers kept as
// written, for a controller that adds fields to the pods it makes
// (hostname, volumes, affinity) and passes the rest through.
func (t *PodTemplate) SpecMap() (map[string]any, error) {
	spec := map[string]any{}
	if len(t.Spec) == 0 {
		return spec, nil
	}
	d := json.NewDecoder(bytes.NewReader(t.Spec))
	d.UseNumber()
	if err := d.Decode(&spec); err != nil {
		return nil, fmt.Errorf("pod template spec: %w", err)
	}
	return spec, nil
}
