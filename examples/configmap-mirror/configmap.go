package main

import (
	"maps"

	"github.com/kubecache/kubecache/meta"
)

// The labels and annotation that drive the mirror.
const (
	// SourceLabel marks a ConfigMap to copy into every namespace.
	SourceLabel = "kubecache.dev/mirror"
	// CopyLabel marks a copy this controller made (label values cannot
	// hold a '/', so the source's key is in CopyOfAnnotation).
	CopyLabel = "kubecache.dev/mirror-copy"
	// CopyOfAnnotation holds the key, "namespace/name", of a copy's source.
	CopyOfAnnotation = "kubecache.dev/mirror-of"
)

// ConfigMap is the part of a ConfigMap this controller reads and writes.
// Decoding only these fields keeps the cache small; a field not declared
// here would be lost when a copy is written, so every field a copy carries
// is declared.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
	BinaryData      map[string]string `json:"binaryData,omitempty"`
}

// isSource reports whether cm asks to be mirrored.
func isSource(cm *ConfigMap) bool { return cm.Labels[SourceLabel] == "true" }

// copyOf returns the key of the source cm is a copy of, and false if cm is
// not a copy made by this controller.
func copyOf(cm *ConfigMap) (string, bool) {
	if cm.Labels[CopyLabel] != "true" {
		return "", false
	}
	src, ok := cm.Annotations[CopyOfAnnotation]
	return src, ok && src != ""
}

// desiredCopy returns the copy of src that belongs in namespace.
func desiredCopy(src *ConfigMap, namespace string) *ConfigMap {
	return &ConfigMap{
		TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta.ObjectMeta{
			Name:        src.Name,
			Namespace:   namespace,
			Labels:      map[string]string{CopyLabel: "true"},
			Annotations: map[string]string{CopyOfAnnotation: meta.Key(src)},
		},
		Data:       maps.Clone(src.Data),
		BinaryData: maps.Clone(src.BinaryData),
	}
}

// sameContent reports whether a copy already carries src's data.
func sameContent(copy, src *ConfigMap) bool {
	return maps.Equal(copy.Data, src.Data) && maps.Equal(copy.BinaryData, src.BinaryData)
}
