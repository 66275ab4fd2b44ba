package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// jsonSchemaProps is the part of an apiextensions.k8s.io/v1
// JSONSchemaProps (a CRD version's openAPIV3Schema) that FromJSONSchema
// reads.
type jsonSchemaProps struct {
	Type                  string                     `json:"type"`
	Format                string                     `json:"format"`
	Properties            map[string]json.RawMessage `json:"properties"`
	Items                 json.RawMessage            `json:"items"`
	AdditionalProperties  json.RawMessage            `json:"additionalProperties"`
	Required              []string                   `json:"required"`
	Default               json.RawMessage            `json:"default"`
	ListType              string                     `json:"x-kubernetes-list-type"`
	ListMapKeys           []string                   `json:"x-kubernetes-list-map-keys"`
	MapType               string                     `json:"x-kubernetes-map-type"`
	PreserveUnknownFields bool                       `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString           bool                       `json:"x-kubernetes-int-or-string"`
	Nullable              bool                       `json:"nullable"`
	EmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource"`
}

// maxSchemaDepth bounds the nesting FromJSONSchema follows.
const maxSchemaDepth = 64

// FromJSONSchema converts a CustomResourceDefinition version's
// openAPIV3Schema (JSON) into a Schema, so server-side apply can follow
// the list types and map keys a CRD declares. The root gains apiVersion,
// kind and metadata (ObjectMeta) when it lacks them, as the real server
// adds them. Unknown keywords are ignored.
func FromJSONSchema(raw []byte) (*Schema, error) {
	s, err := fromJSONSchema(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("openAPIV3Schema: %w", err)
	}
	if s.Type == "" {
		s.Type = "object"
	}
	for _, p := range []Property{
		{"apiVersion", &Schema{Type: "string"}},
		{"kind", &Schema{Type: "string"}},
		{"metadata", &Schema{Ref: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}},
	} {
		if s.Property(p.Name) == nil {
			s.Properties = append(s.Properties, p)
		}
	}
	slices.SortFunc(s.Properties, func(a, b Property) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return s, nil
}

func fromJSONSchema(raw []byte, depth int) (*Schema, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxSchemaDepth)
	}
	var p jsonSchemaProps
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	s := &Schema{
		Type: p.Type, Format: p.Format, ListType: p.ListType, ListMapKeys: p.ListMapKeys, MapType: p.MapType,
		PreserveUnknownFields: p.PreserveUnknownFields, IntOrString: p.IntOrString, EmbeddedResource: p.EmbeddedResource,
		Required: p.Required, Nullable: p.Nullable,
	}
	if d := bytes.TrimSpace(p.Default); len(d) > 0 && d[0] != '{' && d[0] != '[' {
		s.Default = string(d)
	}
	names := make([]string, 0, len(p.Properties))
	for n := range p.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c, err := fromJSONSchema(p.Properties[n], depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		s.Properties = append(s.Properties, Property{n, c})
	}
	if items := bytes.TrimSpace(p.Items); len(items) > 0 && items[0] == '{' {
		c, err := fromJSONSchema(items, depth+1)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		s.Items = c
	}
	switch ap := bytes.TrimSpace(p.AdditionalProperties); {
	case len(ap) == 0 || bytes.Equal(ap, []byte("false")):
	case bytes.Equal(ap, []byte("true")):
		s.AdditionalProperties = &Schema{PreserveUnknownFields: true}
	default:
		c, err := fromJSONSchema(ap, depth+1)
		if err != nil {
			return nil, fmt.Errorf("additionalProperties: %w", err)
		}
		s.AdditionalProperties = c
	}
	return s, nil
}
