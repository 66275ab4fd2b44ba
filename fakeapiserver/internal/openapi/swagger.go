package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Swagger renders the /openapi/v2 document (Swagger 2.0) from the OpenAPI
// v3 group-version documents GroupVersion renders: their paths with each
// operation in the v2 form (a body parameter, consumes and produces,
// responses with a schema, the x-kubernetes-action and
// x-kubernetes-group-version-kind extensions kept), and their schemas as
// definitions. What v2 cannot say is narrowed as the real v2 document
// does: an int-or-string is {type: string, format: int-or-string}, a
// property's allOf of one reference is the bare reference. The real server
// serves it as JSON (and as protobuf, which this server does not); kubectl
// reads it only when OpenAPI v3 is missing.
func Swagger(docs map[string][]byte) ([]byte, error) {
	paths := map[string]any{}
	defs := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		var doc struct {
			Info struct {
				Title string `json:"title"`
			} `json:"info"`
			Paths      map[string]map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(docs[name], &doc); err != nil {
			return nil, fmt.Errorf("openapi v3 document %s: %w", name, err)
		}
		for p, item := range doc.Paths {
			paths[p] = swaggerPathItem(item)
		}
		for n, s := range doc.Components.Schemas {
			if doc.Info.Title == customTitle && !strings.HasPrefix(n, "io.k8s.") {
				s = swaggerCustomKind(s)
			}
			defs[n] = swaggerSchema(s)
		}
	}
	out := map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": "1.37"},
		"paths":       paths,
		"definitions": defs,
		"securityDefinitions": map[string]any{"BearerToken": map[string]string{
			"description": "Bearer Token authentication", "type": "apiKey", "name": "authorization", "in": "header",
		}},
		"security": []any{map[string]any{"BearerToken": []any{}}},
	}
	return json.Marshal(out)
}

// swaggerPathItem converts a v3 path item: its operations and its shared
// parameters.
func swaggerPathItem(item map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range item {
		if k == "parameters" {
			out[k] = swaggerParams(v)
			continue
		}
		op, ok := v.(map[string]any)
		if !ok {
			continue
		}
		out[k] = swaggerOperation(op)
	}
	return out
}

// swaggerOperation converts one v3 operation.
func swaggerOperation(op map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range op {
		switch k {
		case "parameters", "requestBody", "responses":
		default:
			out[k] = v
		}
	}
	params := swaggerParams(op["parameters"])
	if body, ok := op["requestBody"].(map[string]any); ok {
		content, _ := body["content"].(map[string]any)
		consumes := slices.Sorted(maps.Keys(content))
		out["consumes"] = consumes
		var schema any = map[string]any{"type": "object"}
		if len(consumes) > 0 {
			if c, ok := content[consumes[0]].(map[string]any); ok && c["schema"] != nil {
				schema = swaggerSchema(c["schema"])
			}
		}
		params = append([]any{map[string]any{"name": "body", "in": "body", "required": true, "schema": schema}}, params...)
	}
	out["parameters"] = params
	out["produces"] = []string{"application/json", "application/yaml"}
	out["schemes"] = []string{"https"}
	responses := map[string]any{}
	if rs, ok := op["responses"].(map[string]any); ok {
		for code, r := range rs {
			resp, _ := r.(map[string]any)
			conv := map[string]any{"description": resp["description"]}
			if content, ok := resp["content"].(map[string]any); ok {
				if c, ok := content["application/json"].(map[string]any); ok && c["schema"] != nil {
					conv["schema"] = swaggerSchema(c["schema"])
				}
			}
			responses[code] = conv
		}
	}
	out["responses"] = responses
	return out
}

// swaggerParams moves each parameter's schema type up beside its name, as
// v2 writes non-body parameters.
func swaggerParams(v any) []any {
	list, _ := v.([]any)
	out := []any{}
	for _, p := range list {
		param, ok := p.(map[string]any)
		if !ok {
			continue
		}
		conv := map[string]any{}
		for k, v := range param {
			if k != "schema" {
				conv[k] = v
			}
		}
		if s, ok := param["schema"].(map[string]any); ok {
			for k, v := range s {
				conv[k] = v
			}
		}
		out = append(out, conv)
	}
	return out
}

// swaggerSchema converts a v3 schema: references point into definitions,
// a lone allOf reference is the reference itself, and oneOf (which v2
// lacks) is dropped, leaving the type and format beside it.
func swaggerSchema(v any) any {
	switch s := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range s {
			switch k {
			case "$ref":
				ref, _ := v.(string)
				out[k] = strings.Replace(ref, "#/components/schemas/", "#/definitions/", 1)
			case "oneOf":
			case "properties":
				props, _ := v.(map[string]any)
				conv := map[string]any{}
				for name, p := range props {
					conv[name] = swaggerSchema(p)
				}
				out[k] = conv
			case "default", "enum", "example":
				out[k] = v
			case "allOf":
				list, _ := v.([]any)
				if len(list) == 1 {
					if r, ok := list[0].(map[string]any); ok && len(r) == 1 && r["$ref"] != nil {
						maps.Copy(out, swaggerSchema(r).(map[string]any))
						continue
					}
				}
				out[k] = swaggerSchema(v)
			default:
				out[k] = swaggerSchema(v)
			}
		}
		if s["format"] == "int-or-string" {
			out["type"] = "string"
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, e := range s {
			out[i] = swaggerSchema(e)
		}
		return out
	default:
		return v
	}
}
