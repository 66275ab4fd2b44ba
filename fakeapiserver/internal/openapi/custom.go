package openapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// Custom resources' group-version documents, in the shape the real
// server's CRD handler publishes them: info "Kubernetes CRD Swagger", the
// CRD version's openAPIV3Schema as the kind's schema (descriptions,
// defaults, validation keywords and x-kubernetes-validations kept) with
// apiVersion, kind and metadata added, a <Kind>List schema, the
// operations of the resource (no strategic merge patch: custom resources
// do not support it), its status and scale subresources and the
// cross-namespace list, and the shared metav1 definitions they refer to.

const listMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"

// The descriptions the real server gives the members it adds.
const (
	descAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descMetadata   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	descListMeta   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	// The embedded resource's members are described in lower case.
	descEmbeddedAPIVersion = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descEmbeddedKind       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// customTitle marks a custom resources' document (Swagger reads it to
// apply the v2 narrowing only there).
const customTitle = "Kubernetes CRD Swagger"

// CustomGroupVersion renders the OpenAPI v3 document of a group version
// whose resources come from CustomResourceDefinitions (Resource.Schema is
// each one's openAPIV3Schema, nil for none).
func CustomGroupVersion(group, version string, resources []Resource, defs *Definitions) []byte {
	paths := map[string]any{}
	schemas := map[string]any{}
	refs := &collector{defs: defs, schemas: schemas}
	need := refs.need
	for _, n := range []string{objectMetaName, listMetaName, statusName, patchName, "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"} {
		need(n)
	}
	for _, r := range resources {
		if r.Group != group || r.Version != version {
			continue
		}
		name := customSchemaName(r.gvk())
		schemas[name] = publishedSchema(r)
		schemas[name+"List"] = listSchema(r, name)
		if hasString(r.Subresources, "scale") {
			need("io.k8s.api.autoscaling.v1.Scale")
		}
		addCustomOperations(paths, r, name)
	}
	refs.resolve()
	doc := map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": customTitle, "version": "v0.1.0"},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // decoded JSON and strings
	}
	return b
}

func hasString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// publishedSchema is the kind's schema: the CRD's openAPIV3Schema with
// the members the server adds.
func publishedSchema(r Resource) map[string]any {
	root := map[string]any{}
	if len(bytes.TrimSpace(r.Schema)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(r.Schema))
		dec.UseNumber()
		var v map[string]any
		if dec.Decode(&v) == nil && v != nil {
			root = v
		}
	}
	publishNode(root)
	if root["type"] == nil {
		root["type"] = "object"
	}
	props, _ := root["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["apiVersion"] = map[string]any{"description": descAPIVersion, "type": "string"}
	props["kind"] = map[string]any{"description": descKind, "type": "string"}
	props["metadata"] = map[string]any{"description": descMetadata, "allOf": []any{ref(objectMetaName)}}
	root["properties"] = props
	root["x-kubernetes-group-version-kind"] = []any{map[string]string{"group": r.Group, "kind": r.Kind, "version": r.Version}}
	return root
}

// publishNode adds what the server publishes beside a node's own
// keywords, depth first: anyOf integer|string for an int-or-string, and
// apiVersion, kind and metadata (apiVersion and kind required) for an
// embedded resource.
func publishNode(n map[string]any) {
	for _, k := range []string{"properties", "patternProperties", "definitions"} {
		if props, ok := n[k].(map[string]any); ok {
			for _, p := range props {
				if m, ok := p.(map[string]any); ok {
					publishNode(m)
				}
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if m, ok := n[k].(map[string]any); ok {
			publishNode(m)
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := n[k].([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					publishNode(m)
				}
			}
		}
	}
	if n["x-kubernetes-int-or-string"] == true && n["anyOf"] == nil {
		n["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	if n["x-kubernetes-embedded-resource"] == true {
		props, _ := n["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
		}
		props["apiVersion"] = map[string]any{"description": descEmbeddedAPIVersion, "type": "string"}
		props["kind"] = map[string]any{"description": descEmbeddedKind, "type": "string"}
		props["metadata"] = map[string]any{"description": descMetadata, "allOf": []any{ref(objectMetaName)}}
		n["properties"] = props
		req, _ := n["required"].([]any)
		for _, k := range []string{"kind", "apiVersion"} {
			if !containsAny(req, k) {
				req = append(req, k)
			}
		}
		n["required"] = req
	}
}

func containsAny(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// listSchema is the <Kind>List schema.
func listSchema(r Resource, itemSchema string) map[string]any {
	return map[string]any{
		"description": r.Kind + "List is a list of " + r.Kind,
		"type":        "object",
		"required":    []string{"items"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"description": descAPIVersion, "type": "string"},
			"items": map[string]any{
				"description": "List of " + r.Plural + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
				"type":        "array",
				"items":       ref(itemSchema),
			},
			"kind":     map[string]any{"description": descKind, "type": "string"},
			"metadata": map[string]any{"description": descListMeta, "allOf": []any{ref(listMetaName)}},
		},
		"x-kubernetes-group-version-kind": []any{map[string]string{"group": r.Group, "kind": r.Kind + "List", "version": r.Version}},
	}
}

// operationPrefix is the group and version as operation IDs spell them
// ("example.com", "v1" -> "ExampleComV1").
func operationPrefix(group, version string) string {
	var b strings.Builder
	upper := true
	for _, c := range group + "." + version {
		if c == '.' || c == '-' {
			upper = true
			continue
		}
		if upper {
			c = unicode.ToUpper(c)
			upper = false
		}
		b.WriteRune(c)
	}
	return b.String()
}

// addCustomOperations lists a custom resource's operations.
func addCustomOperations(paths map[string]any, r Resource, schema string) {
	prefix := operationPrefix(r.Group, r.Version)
	tag := strings.ToLower(prefix[:1]) + prefix[1:len(prefix)-len(r.Version)] + "_" + r.Version
	scope := ""
	base := "/apis/" + r.Group + "/" + r.Version
	if r.Namespaced {
		scope = "Namespaced"
		base += "/namespaces/{namespace}"
	}
	gvk := map[string]string{"group": r.Group, "version": r.Version, "kind": r.Kind}
	content := func(s map[string]any, types ...string) map[string]any {
		c := map[string]any{}
		for _, t := range types {
			c[t] = map[string]any{"schema": s}
		}
		return c
	}
	respond := func(s string, codes ...string) map[string]any {
		out := map[string]any{"401": map[string]any{"description": "Unauthorized"}}
		for _, c := range codes {
			out[c] = map[string]any{"description": "OK", "content": content(ref(s), "application/json", "application/yaml")}
		}
		return out
	}
	op := func(id, desc, action string, params []string, responses map[string]any, body map[string]any) map[string]any {
		o := map[string]any{
			"tags": []string{tag}, "description": desc, "operationId": id,
			"x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk,
			"responses": responses,
		}
		if len(params) > 0 {
			o["parameters"] = queryParams(params...)
		}
		if body != nil {
			o["requestBody"] = map[string]any{"required": true, "content": body}
		}
		return o
	}
	listParams := []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}
	writeParams := []string{"dryRun", "fieldManager", "fieldValidation"}
	patchBody := content(ref(patchName), "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json")
	objectBody := content(ref(schema), "application/json", "application/yaml")
	kind := scope + r.Kind
	paths[base+"/"+r.Plural] = map[string]any{
		"parameters": pathParams(r.Namespaced, false),
		"get":        op("list"+prefix+kind, "list objects of kind "+r.Kind, "list", listParams, respond(schema+"List", "200"), nil),
		"post":       op("create"+prefix+kind, "create a "+r.Kind, "post", writeParams, respond(schema, "200", "201", "202"), objectBody),
		"delete":     op("delete"+prefix+"Collection"+kind, "delete collection of "+r.Kind, "deletecollection", listParams, respond(statusName, "200"), nil),
	}
	paths[base+"/"+r.Plural+"/{name}"] = map[string]any{
		"parameters": pathParams(r.Namespaced, true),
		"get":        op("read"+prefix+kind, "read the specified "+r.Kind, "get", []string{"resourceVersion"}, respond(schema, "200"), nil),
		"put":        op("replace"+prefix+kind, "replace the specified "+r.Kind, "put", writeParams, respond(schema, "200", "201"), objectBody),
		"delete":     op("delete"+prefix+kind, "delete a "+r.Kind, "delete", []string{"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"}, respond(statusName, "200", "202"), content(ref("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"), "application/json", "application/yaml")),
		"patch":      op("patch"+prefix+kind, "partially update the specified "+r.Kind, "patch", append(writeParams, "force"), respond(schema, "200"), patchBody),
	}
	for _, sub := range r.Subresources {
		subSchema, title := schema, strings.ToUpper(sub[:1])+sub[1:]
		if sub == "scale" {
			subSchema = "io.k8s.api.autoscaling.v1.Scale"
		}
		subBody := content(ref(subSchema), "application/json", "application/yaml")
		paths[base+"/"+r.Plural+"/{name}/"+sub] = map[string]any{
			"parameters": pathParams(r.Namespaced, true),
			"get":        op("read"+prefix+kind+title, "read "+sub+" of the specified "+r.Kind, "get", []string{"resourceVersion"}, respond(subSchema, "200"), nil),
			"put":        op("replace"+prefix+kind+title, "replace "+sub+" of the specified "+r.Kind, "put", writeParams, respond(subSchema, "200", "201"), subBody),
			"patch":      op("patch"+prefix+kind+title, "partially update "+sub+" of the specified "+r.Kind, "patch", append(writeParams, "force"), respond(subSchema, "200"), patchBody),
		}
	}
	if r.Namespaced {
		all := map[string]any{"get": op("list"+prefix+r.Kind+"ForAllNamespaces", "list objects of kind "+r.Kind, "list", nil, respond(schema+"List", "200"), nil)}
		params := pathParams(false, false)
		all["parameters"] = append(queryParams(listParams...), params...)
		paths["/apis/"+r.Group+"/"+r.Version+"/"+r.Plural] = all
	}
}
