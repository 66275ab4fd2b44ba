package openapi

// Custom resources' schemas in /openapi/v2, narrowed as the real server
// narrows them for Swagger 2.0, which cannot say what structural schemas
// say (and which kubectl's v2 reader would misread): defaults go (pruned
// so that the document merges with the built-in one); allOf, anyOf, oneOf
// and not go everywhere; a nullable value loses its type, items and
// properties, and is no longer required by its parent (a nullable
// additionalProperties clears the parent's required); a value that keeps
// unknown fields loses its items and properties, and its type when that
// is object; an array left without items loses its type; an embedded
// resource that keeps unknown fields gets none of the apiVersion, kind and
// metadata members the v3 document adds. A kind whose root keeps unknown
// fields is an untyped object.

// swaggerCustomKind narrows the schema of a custom kind (or its list) for
// v2 before swaggerSchema converts it, returning the narrowed schema.
func swaggerCustomKind(v any) any {
	root, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if root["x-kubernetes-preserve-unknown-fields"] == true {
		out := map[string]any{"type": "object"}
		if gvk, ok := root["x-kubernetes-group-version-kind"]; ok {
			out["x-kubernetes-group-version-kind"] = gvk
		}
		return out
	}
	swaggerCustomSchema(root)
	return root
}

// swaggerCustomSchema narrows one v3 custom schema node in place, the
// node before its members (whose nullable the node's required reads).
func swaggerCustomSchema(n map[string]any) {
	for _, k := range []string{"anyOf", "oneOf", "not"} {
		delete(n, k)
	}
	if !isMetadataRef(n) {
		delete(n, "allOf")
	}
	delete(n, "default")
	preserve := n["x-kubernetes-preserve-unknown-fields"] == true
	if n["nullable"] == true {
		delete(n, "nullable")
		delete(n, "type")
		delete(n, "items")
		delete(n, "properties")
	}
	if preserve {
		delete(n, "items")
		delete(n, "properties")
		if n["x-kubernetes-embedded-resource"] == true {
			n["required"] = withoutStrings(n["required"], "kind", "apiVersion")
		}
	}
	if n["items"] == nil && n["type"] == "array" || preserve && n["type"] == "object" {
		delete(n, "type")
	}
	props, _ := n["properties"].(map[string]any)
	for name, p := range props {
		if m, ok := p.(map[string]any); ok && m["nullable"] == true {
			n["required"] = withoutStrings(n["required"], name)
		}
	}
	if m, ok := n["additionalProperties"].(map[string]any); ok && m["nullable"] == true {
		delete(n, "required")
	}
	if list, ok := n["required"].([]any); ok && len(list) == 0 {
		delete(n, "required")
	}
	for _, p := range props {
		if m, ok := p.(map[string]any); ok {
			swaggerCustomSchema(m)
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if m, ok := n[k].(map[string]any); ok {
			swaggerCustomSchema(m)
		}
	}
}

// isMetadataRef reports whether n is the metadata member the server adds
// (described, an allOf of the one ObjectMeta reference): a CRD's own
// schema cannot hold a reference, so no other allOf is one.
func isMetadataRef(n map[string]any) bool {
	list, _ := n["allOf"].([]any)
	if len(list) != 1 {
		return false
	}
	r, _ := list[0].(map[string]any)
	return len(r) == 1 && r["$ref"] != nil
}

// withoutStrings is a JSON array of strings without the given ones.
func withoutStrings(v any, drop ...string) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	out := []any{}
	for _, e := range list {
		s, _ := e.(string)
		if !hasString(drop, s) {
			out = append(out, e)
		}
	}
	return out
}
