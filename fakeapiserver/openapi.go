package fakeapiserver

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// A minimal OpenAPI v3: per group-version, a PATCH operation for each kind
// carrying x-kubernetes-group-version-kind and a fieldValidation parameter.
// That is what kubectl looks for to learn that the server validates fields
// itself; without any OpenAPI, kubectl create -f and apply -f fail. There
// are no schemas (see docs/fidelity-fakeapiserver.md).

func (s *Server) openAPIPaths() map[string]string {
	out := map[string]string{}
	for _, g := range s.registry.snapshot() {
		for _, v := range g.versions {
			p := "apis/" + g.name + "/" + v.version
			if g.name == "" {
				p = "api/" + v.version
			}
			sum := sha256.Sum256(s.openAPIDoc(g.name, v))
			out[p] = "/openapi/v3/" + p + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:16]))
		}
	}
	return out
}

func (s *Server) serveOpenAPIIndex(w http.ResponseWriter, r *http.Request) {
	paths := map[string]any{}
	for p, url := range s.openAPIPaths() {
		paths[p] = map[string]string{"serverRelativeURL": url}
	}
	writeBody(w, negotiation{pretty: isPretty(r), contentType: "text/plain; charset=utf-8"}, http.StatusOK, marshal(map[string]any{"paths": paths}))
}

func (s *Server) serveOpenAPIGroupVersion(w http.ResponseWriter, r *http.Request, gvPath string) {
	for _, g := range s.registry.snapshot() {
		for _, v := range g.versions {
			p := "apis/" + g.name + "/" + v.version
			if g.name == "" {
				p = "api/" + v.version
			}
			if p == gvPath {
				writeBody(w, negotiation{pretty: isPretty(r)}, http.StatusOK, s.openAPIDoc(g.name, v))
				return
			}
		}
	}
	writeStatus(w, r, errPathNotFound())
}

func (s *Server) openAPIDoc(group string, v *apiVersion) []byte {
	paths := map[string]any{}
	for _, res := range v.resources {
		prefix := "/apis/" + group + "/" + v.version
		if group == "" {
			prefix = "/api/" + v.version
		}
		if res.Namespaced {
			prefix += "/namespaces/{namespace}"
		}
		op := map[string]any{
			"x-kubernetes-group-version-kind": map[string]string{"group": group, "version": v.version, "kind": res.Kind},
			"x-kubernetes-action":             "patch",
			"parameters": []map[string]any{
				{"name": "fieldValidation", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}},
				{"name": "fieldManager", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}},
				{"name": "dryRun", "in": "query", "schema": map[string]any{"type": "string", "uniqueItems": true}},
			},
			"responses": map[string]any{"200": map[string]any{"description": "OK"}},
		}
		paths[prefix+"/"+res.Name+"/{name}"] = map[string]any{"patch": op}
	}
	return marshal(map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": "v1.37.2"},
		"paths":      paths,
		"components": map[string]any{"schemas": map[string]any{}},
	})
}
