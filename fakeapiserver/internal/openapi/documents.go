package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// Resource is one served resource, as the OpenAPI documents describe it.
type Resource struct {
	Group, Version string
	// Plural is the resource name in URLs ("deployments"); Kind its kind.
	Plural, Kind string
	Namespaced   bool
	// Verbs are the discovery verbs ("get", "list", "patch"...); each
	// selects the operations the document lists.
	Verbs []string
	// Custom marks a resource served from a CustomResourceDefinition;
	// Schema is then its version's openAPIV3Schema (JSON, nil for none)
	// and Subresources its "status" and "scale" subresources.
	Custom       bool
	Schema       []byte
	Subresources []string
}

func (r Resource) gvk() GVK { return GVK{Group: r.Group, Version: r.Version, Kind: r.Kind} }

// Path returns the document path of a group version: "api/v1" for the
// core group, "apis/<group>/<version>" otherwise.
func Path(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

// Index renders the /openapi/v3 document: for each group-version path
// (as Path returns it) the URL of its document, with the hash of the
// document's bytes as the real server computes it (hex SHA-512, upper
// case), so clients can cache by URL. The real server serves it with
// Content-Type text/plain; charset=utf-8.
func Index(docs map[string][]byte) []byte {
	paths := map[string]map[string]string{}
	for p, doc := range docs {
		paths[p] = map[string]string{"serverRelativeURL": "/openapi/v3/" + p + "?hash=" + Hash(doc)}
	}
	b, err := json.Marshal(map[string]any{"paths": paths})
	if err != nil {
		panic(err) // strings only
	}
	return b
}

// Hash is the hash the index puts in a document's URL.
func Hash(doc []byte) string {
	sum := sha512.Sum512(doc)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// GroupVersion renders the OpenAPI v3 document of one group version
// (/openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>): for every
// resource, its operations — the PATCH of an object carries
// x-kubernetes-group-version-kind and the fieldValidation parameter, which
// is how kubectl learns that the server validates fields itself — and in
// components.schemas the schemas of its kind with every definition they
// use, including the x-kubernetes-patch-merge-key and
// x-kubernetes-patch-strategy extensions kubectl's client-side apply reads.
// A kind defs does not declare (a custom resource) gets a schema that
// keeps unknown fields. Descriptions are left out.
func GroupVersion(group, version string, resources []Resource, defs *Definitions) []byte {
	paths := map[string]any{}
	schemas := map[string]any{}
	refs := &collector{defs: defs, schemas: schemas}
	need := refs.need
	prefix := "/" + Path(group, version)
	for _, r := range resources {
		if r.Group != group || r.Version != version {
			continue
		}
		name, ok := kindSchemaName(defs, r.gvk())
		if ok {
			need(name)
		} else {
			name = customSchemaName(r.gvk())
			schemas[name] = customSchema(r.gvk())
			need(objectMetaName)
		}
		need(statusName)
		need(patchName)
		base := prefix
		if r.Namespaced {
			base += "/namespaces/{namespace}"
		}
		addOperations(paths, base+"/"+r.Plural, r, name)
	}
	refs.resolve()
	doc := map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": "v1.37.2"},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // maps of strings and bools
	}
	return b
}

const (
	objectMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	statusName     = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	patchName      = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
)

// kindSchemaName finds the definition of a kind, preferring the one whose
// name ends with the kind (DeleteOptions and the like declare many).
func kindSchemaName(defs *Definitions, gvk GVK) (string, bool) {
	name, _, ok := defs.ForKind(gvk)
	return name, ok
}

// customSchemaName names a custom resource's schema as the real server
// does: the group reversed, then version and kind ("com.example.v1.Widget").
func customSchemaName(gvk GVK) string {
	parts := strings.Split(gvk.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}

func customSchema(gvk GVK) map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string"},
			"kind":       map[string]any{"type": "string"},
			"metadata":   map[string]any{"allOf": []any{ref(objectMetaName)}},
		},
		"x-kubernetes-preserve-unknown-fields": true,
		"x-kubernetes-group-version-kind":      []any{map[string]string{"group": gvk.Group, "kind": gvk.Kind, "version": gvk.Version}},
	}
}

func ref(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func has(verbs []string, v string) bool { return slices.Contains(verbs, v) }

// addOperations lists a resource's operations under its paths.
func addOperations(paths map[string]any, collection string, r Resource, schema string) {
	gvk := map[string]string{"group": r.Group, "version": r.Version, "kind": r.Kind}
	body := func(contentTypes ...string) map[string]any {
		content := map[string]any{}
		for _, ct := range contentTypes {
			s := ref(schema)
			if strings.Contains(ct, "patch") {
				s = ref(patchName)
			}
			content[ct] = map[string]any{"schema": s}
		}
		return map[string]any{"required": true, "content": content}
	}
	respond := func(codes ...string) map[string]any {
		out := map[string]any{}
		for _, c := range codes {
			out[c] = map[string]any{"description": "OK", "content": map[string]any{
				"application/json": map[string]any{"schema": ref(schema)},
				"application/yaml": map[string]any{"schema": ref(schema)},
			}}
		}
		out["401"] = map[string]any{"description": "Unauthorized"}
		return out
	}
	op := func(action string, params []string, extra map[string]any) map[string]any {
		o := map[string]any{
			"operationId":                     action + r.Kind,
			"x-kubernetes-action":             action,
			"x-kubernetes-group-version-kind": gvk,
			"parameters":                      queryParams(params...),
		}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	writeParams := []string{"dryRun", "fieldManager", "fieldValidation"}
	coll := map[string]any{}
	if has(r.Verbs, "list") {
		coll["get"] = op("list", []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}, map[string]any{"responses": respond("200")})
	}
	if has(r.Verbs, "create") {
		coll["post"] = op("post", writeParams, map[string]any{"requestBody": body("*/*"), "responses": respond("200", "201", "202")})
	}
	if has(r.Verbs, "deletecollection") {
		coll["delete"] = op("deletecollection", []string{"dryRun", "gracePeriodSeconds", "propagationPolicy"}, map[string]any{"responses": respond("200")})
	}
	if len(coll) > 0 {
		coll["parameters"] = pathParams(r.Namespaced, false)
		paths[collection] = coll
	}
	item := map[string]any{}
	if has(r.Verbs, "get") {
		item["get"] = op("get", nil, map[string]any{"responses": respond("200")})
	}
	if has(r.Verbs, "update") {
		item["put"] = op("put", writeParams, map[string]any{"requestBody": body("*/*"), "responses": respond("200", "201")})
	}
	if has(r.Verbs, "patch") {
		item["patch"] = op("patch", append(writeParams, "force"), map[string]any{
			"requestBody": body("application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"),
			"responses":   respond("200", "201"),
		})
	}
	if has(r.Verbs, "delete") {
		item["delete"] = op("delete", []string{"dryRun", "gracePeriodSeconds", "propagationPolicy"}, map[string]any{"responses": respond("200", "202")})
	}
	if len(item) > 0 {
		item["parameters"] = pathParams(r.Namespaced, true)
		paths[collection+"/{name}"] = item
	}
}

func queryParams(names ...string) []any {
	out := []any{}
	for _, n := range names {
		typ := "string"
		switch n {
		case "allowWatchBookmarks", "force", "sendInitialEvents", "watch":
			typ = "boolean"
		case "limit", "timeoutSeconds", "gracePeriodSeconds":
			typ = "integer"
		}
		out = append(out, map[string]any{"name": n, "in": "query", "schema": map[string]any{"type": typ, "uniqueItems": true}})
	}
	return out
}

func pathParams(namespaced, named bool) []any {
	var out []any
	if named {
		out = append(out, map[string]any{"name": "name", "in": "path", "required": true, "schema": map[string]any{"type": "string", "uniqueItems": true}})
	}
	if namespaced {
		out = append(out, map[string]any{"name": "namespace", "in": "path", "required": true, "schema": map[string]any{"type": "string", "uniqueItems": true}})
	}
	out = append(out, map[string]any{"name": "pretty", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}})
	return out
}

// collector gathers into schemas the definitions a document names and,
// transitively, those they refer to.
type collector struct {
	defs    *Definitions
	schemas map[string]any
	pending []string
}

// need adds a definition (once) if defs has it.
func (c *collector) need(name string) {
	if _, ok := c.schemas[name]; !ok && c.defs.Get(name) != nil {
		c.schemas[name] = nil
		c.pending = append(c.pending, name)
	}
}

// resolve renders every needed definition and what it refers to.
func (c *collector) resolve() {
	for len(c.pending) > 0 {
		n := c.pending[0]
		c.pending = c.pending[1:]
		s := c.defs.Get(n)
		c.schemas[n] = render(s, false)
		walkRefs(s, c.need)
	}
}

// walkRefs calls need for every definition s refers to.
func walkRefs(s *Schema, need func(string)) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		need(s.Ref)
	}
	for _, p := range s.Properties {
		walkRefs(p.Schema, need)
	}
	for _, o := range s.OneOf {
		walkRefs(o, need)
	}
	walkRefs(s.Items, need)
	walkRefs(s.AdditionalProperties, need)
}

// render turns a schema into its OpenAPI JSON form. A reference of a
// property is written as allOf (the real documents' form, which keeps the
// extensions beside it meaningful); elsewhere a bare $ref.
func render(s *Schema, property bool) map[string]any {
	out := map[string]any{}
	if s.Ref != "" {
		if property || s.hasOverlay() {
			out["allOf"] = []any{ref(s.Ref)}
		} else {
			return ref(s.Ref)
		}
	}
	if s.Type != "" {
		out["type"] = s.Type
	}
	if s.Format != "" {
		out["format"] = s.Format
	}
	if len(s.OneOf) > 0 {
		var alts []any
		for _, o := range s.OneOf {
			alts = append(alts, render(o, false))
		}
		out["oneOf"] = alts
	}
	if len(s.Properties) > 0 {
		props := map[string]any{}
		for _, p := range s.Properties {
			props[p.Name] = render(p.Schema, true)
		}
		out["properties"] = props
	}
	if len(s.Required) > 0 {
		out["required"] = s.Required
	}
	if s.Items != nil {
		out["items"] = render(s.Items, false)
	}
	if s.AdditionalProperties != nil {
		out["additionalProperties"] = render(s.AdditionalProperties, false)
	}
	if s.DefaultEmpty {
		out["default"] = map[string]any{}
	} else if s.Default != "" {
		out["default"] = json.RawMessage(s.Default)
	}
	ext := map[string]any{
		"x-kubernetes-list-type":          s.ListType,
		"x-kubernetes-map-type":           s.MapType,
		"x-kubernetes-patch-strategy":     s.PatchStrategy,
		"x-kubernetes-patch-merge-key":    s.PatchMergeKey,
		"x-kubernetes-list-map-keys":      s.ListMapKeys,
		"x-kubernetes-group-version-kind": s.GVK,
	}
	for k, v := range ext {
		switch v := v.(type) {
		case string:
			if v != "" {
				out[k] = v
			}
		case []string:
			if len(v) > 0 {
				out[k] = v
			}
		case []GVK:
			if len(v) > 0 {
				var gs []any
				for _, g := range v {
					gs = append(gs, map[string]string{"group": g.Group, "version": g.Version, "kind": g.Kind})
				}
				out[k] = gs
			}
		}
	}
	for k, v := range map[string]bool{
		"x-kubernetes-preserve-unknown-fields": s.PreserveUnknownFields,
		"x-kubernetes-int-or-string":           s.IntOrString,
		"x-kubernetes-embedded-resource":       s.EmbeddedResource,
	} {
		if v {
			out[k] = true
		}
	}
	return out
}
