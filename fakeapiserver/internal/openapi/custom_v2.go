package openapi

// Custom resources' schemas in /openapi/v2, narrowed as the real server
// narrows them for Swagger 2.0, which cannot say what structural schemas
// say: defaults go; a nullable value and an int-or-string lose their type
// (and the int-or-string its anyOf); a value that keeps unknown fields
// loses its type, and an embedded resource its added members too.

// swaggerCustomSchema narrows one v3 custom schema node (in place, depth
// first) before swaggerSchema converts it.
func swaggerCustomSchema(v any) {
	n, ok := v.(map[string]any)
	if !ok {
		if list, ok := v.([]any); ok {
			for _, e := range list {
				swaggerCustomSchema(e)
			}
		}
		return
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for _, p := range props {
			swaggerCustomSchema(p)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"} {
		swaggerCustomSchema(n[k])
	}
	delete(n, "default")
	if n["nullable"] == true {
		delete(n, "nullable")
		delete(n, "type")
	}
	if n["x-kubernetes-int-or-string"] == true {
		delete(n, "anyOf")
		delete(n, "type")
	}
	if n["x-kubernetes-preserve-unknown-fields"] == true {
		delete(n, "type")
	}
	if n["x-kubernetes-embedded-resource"] == true {
		delete(n, "type")
		delete(n, "properties")
		delete(n, "required")
	}
}
