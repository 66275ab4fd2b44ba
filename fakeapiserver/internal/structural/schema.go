package structural

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Schema is one node of a structural schema.
type Schema struct {
	Type   string
	Format string
	// Nullable keeps a null as a value.
	Nullable              bool
	PreserveUnknownFields bool
	IntOrString           bool
	EmbeddedResource      bool
	// Default is the value an absent field gets (nil: none).
	Default *jsonv.Value
	// Enum lists the allowed values (nil: any).
	Enum []jsonv.Value
	// Maximum and Minimum are the bounds' literals ("" for none).
	Maximum, Minimum                   string
	ExclusiveMaximum, ExclusiveMinimum bool
	// MultipleOf is the literal of the divisor ("" for none).
	MultipleOf           string
	MaxLength, MinLength *int64
	MaxItems, MinItems   *int64
	MaxProperties        *int64
	MinProperties        *int64
	Pattern              *regexp.Regexp
	Required             []string
	Properties           map[string]*Schema
	Items                *Schema
	AdditionalProperties *Schema
	ListType             string
	ListMapKeys          []string
	MapType              string
	Validations          []Rule
	propertyNames        []string
}

// Rule is one x-kubernetes-validations entry.
type Rule struct {
	Rule              string `json:"rule"`
	Message           string `json:"message,omitempty"`
	MessageExpression string `json:"messageExpression,omitempty"`
	Reason            string `json:"reason,omitempty"`
	FieldPath         string `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool  `json:"optionalOldSelf,omitempty"`
}

// PropertyNames returns the object's declared properties, sorted.
func (s *Schema) PropertyNames() []string { return s.propertyNames }

type props struct {
	Type                  string                     `json:"type"`
	Format                string                     `json:"format"`
	Nullable              bool                       `json:"nullable"`
	PreserveUnknownFields bool                       `json:"x-kubernetes-preserve-unknown-fields"`
	IntOrString           bool                       `json:"x-kubernetes-int-or-string"`
	EmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource"`
	Default               json.RawMessage            `json:"default"`
	Enum                  []json.RawMessage          `json:"enum"`
	Maximum               json.Number                `json:"maximum"`
	Minimum               json.Number                `json:"minimum"`
	ExclusiveMaximum      bool                       `json:"exclusiveMaximum"`
	ExclusiveMinimum      bool                       `json:"exclusiveMinimum"`
	MultipleOf            json.Number                `json:"multipleOf"`
	MaxLength             *int64                     `json:"maxLength"`
	MinLength             *int64                     `json:"minLength"`
	MaxItems              *int64                     `json:"maxItems"`
	MinItems              *int64                     `json:"minItems"`
	MaxProperties         *int64                     `json:"maxProperties"`
	MinProperties         *int64                     `json:"minProperties"`
	Pattern               string                     `json:"pattern"`
	Required              []string                   `json:"required"`
	Properties            map[string]json.RawMessage `json:"properties"`
	Items                 json.RawMessage            `json:"items"`
	AdditionalProperties  json.RawMessage            `json:"additionalProperties"`
	ListType              string                     `json:"x-kubernetes-list-type"`
	ListMapKeys           []string                   `json:"x-kubernetes-list-map-keys"`
	MapType               string                     `json:"x-kubernetes-map-type"`
	Validations           []Rule                     `json:"x-kubernetes-validations"`
}

// maxDepth bounds the nesting Parse follows.
const maxDepth = 64

// Parse reads a CRD version's openAPIV3Schema. Keywords it does not know
// are ignored; a pattern that does not compile is an error.
func Parse(raw []byte) (*Schema, error) {
	return parse(raw, 0)
}

func parse(raw []byte, depth int) (*Schema, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	var p props
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	s := &Schema{
		Type: p.Type, Format: p.Format, Nullable: p.Nullable, PreserveUnknownFields: p.PreserveUnknownFields,
		IntOrString: p.IntOrString, EmbeddedResource: p.EmbeddedResource,
		Maximum: string(p.Maximum), Minimum: string(p.Minimum), ExclusiveMaximum: p.ExclusiveMaximum, ExclusiveMinimum: p.ExclusiveMinimum,
		MultipleOf: string(p.MultipleOf), MaxLength: p.MaxLength, MinLength: p.MinLength, MaxItems: p.MaxItems, MinItems: p.MinItems,
		MaxProperties: p.MaxProperties, MinProperties: p.MinProperties, Required: p.Required,
		ListType: p.ListType, ListMapKeys: p.ListMapKeys, MapType: p.MapType, Validations: p.Validations,
	}
	for _, n := range []string{s.Maximum, s.Minimum, s.MultipleOf} {
		if n != "" {
			if _, err := strconv.ParseFloat(n, 64); err != nil {
				return nil, fmt.Errorf("bad number %q", n)
			}
		}
	}
	if d := bytes.TrimSpace(p.Default); len(d) > 0 {
		v, err := jsonv.Parse(d)
		if err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		s.Default = &v.Value
	}
	for _, e := range p.Enum {
		v, err := jsonv.Parse(e)
		if err != nil {
			return nil, fmt.Errorf("enum: %w", err)
		}
		s.Enum = append(s.Enum, v.Value)
	}
	if p.Pattern != "" {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return nil, fmt.Errorf("pattern: %w", err)
		}
		s.Pattern = re
	}
	if len(p.Properties) > 0 {
		s.Properties = map[string]*Schema{}
		for n, raw := range p.Properties {
			c, err := parse(raw, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			s.Properties[n] = c
			s.propertyNames = append(s.propertyNames, n)
		}
		slices.Sort(s.propertyNames)
	}
	if items := bytes.TrimSpace(p.Items); len(items) > 0 && items[0] == '{' {
		c, err := parse(items, depth+1)
		if err != nil {
			return nil, fmt.Errorf("items: %w", err)
		}
		s.Items = c
	}
	if ap := bytes.TrimSpace(p.AdditionalProperties); len(ap) > 0 && ap[0] == '{' {
		c, err := parse(ap, depth+1)
		if err != nil {
			return nil, fmt.Errorf("additionalProperties: %w", err)
		}
		s.AdditionalProperties = c
	}
	return s, nil
}

// child returns the schema of an object's member key, or nil.
func (s *Schema) child(key string) *Schema {
	if c, ok := s.Properties[key]; ok {
		return c
	}
	return s.AdditionalProperties
}

// WithProperties returns a shallow copy of s whose properties are s's
// with props added (or replacing those of the same name); s is not
// changed.
func (s *Schema) WithProperties(props map[string]*Schema) *Schema {
	c := *s
	c.Properties = make(map[string]*Schema, len(s.Properties)+len(props))
	maps.Copy(c.Properties, s.Properties)
	maps.Copy(c.Properties, props)
	c.propertyNames = slices.Sorted(maps.Keys(c.Properties))
	return &c
}
