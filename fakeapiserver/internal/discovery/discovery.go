package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"runtime"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// Discovery: /version, the legacy documents (/api, /apis, /apis/g,
// /api/v1, /apis/g/v) and aggregated discovery (apidiscovery.k8s.io/v2,
// chosen by the Accept header as kubectl asks for it), health checks and a
// minimal OpenAPI v3 that tells kubectl the server validates fields itself.

// MediaAggregated is the Accept type of aggregated discovery, as kubectl
// asks for it.
const MediaAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// Server serves discovery and the OpenAPI documents of the
// resources in a registry.
type Server struct {
	registry *registry.Registry
	// openapi caches the rendered OpenAPI v3 documents.
	openapi openAPICache
	// openapiV2 caches /openapi/v2.
	openapiV2 openAPIV2Cache
	// NoOpenAPIV3 answers 404 for /openapi/v3 and below, as a server
	// without OpenAPI v3 (set before serving).
	NoOpenAPIV3 bool
}

// New returns a discoveryServer for reg.
func New(reg *registry.Registry) *Server {
	return &Server{registry: reg}
}

// ServeNonResource serves everything that is not under a group-version.
func (s *Server) ServeNonResource(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		request.WriteStatus(w, r, apistatus.PathNotFound())
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	pretty := request.Negotiation{Pretty: request.IsPretty(r)}
	switch {
	case path == "/version":
		// The real server indents /version for every client.
		request.WriteBody(w, request.Negotiation{Pretty: true}, http.StatusOK, request.Marshal(versionInfo()))
	case isHealthPath(path):
		serveHealth(w, r, path)
	case path == "/api":
		if wantsAggregated(r) {
			s.writeAggregated(w, r, true)
			return
		}
		request.WriteBody(w, pretty, http.StatusOK, request.Marshal(apiVersions(r.Host)))
	case path == "/apis":
		if wantsAggregated(r) {
			s.writeAggregated(w, r, false)
			return
		}
		groups := []apiGroupDocument{}
		for _, g := range s.registry.Snapshot() {
			if g.Name == "" {
				continue
			}
			groups = append(groups, apiGroupDoc(g))
		}
		request.WriteBody(w, pretty, http.StatusOK, request.Marshal(apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: groups}))
	case strings.HasPrefix(path, "/apis/") && strings.Count(path, "/") == 2:
		name := strings.TrimPrefix(path, "/apis/")
		for _, g := range s.registry.Snapshot() {
			if g.Name == name && name != "" {
				doc := apiGroupDoc(g)
				doc.Kind, doc.APIVersion = "APIGroup", "v1"
				request.WriteBody(w, pretty, http.StatusOK, request.Marshal(doc))
				return
			}
		}
		request.WriteStatus(w, r, apistatus.PathNotFound())
	case path == "/openapi/v2":
		s.serveOpenAPIV2(w, r)
	case s.NoOpenAPIV3 && (path == "/openapi/v3" || strings.HasPrefix(path, "/openapi/v3/")):
		request.WriteStatus(w, r, apistatus.PathNotFound())
	case path == "/openapi/v3":
		s.serveOpenAPIIndex(w, r)
	case strings.HasPrefix(path, "/openapi/v3/"):
		s.serveOpenAPIGroupVersion(w, r, strings.TrimPrefix(path, "/openapi/v3/"))
	default:
		request.WriteStatus(w, r, apistatus.PathNotFound())
	}
}

// versionInfo is /version, as the real v1.37.2 build captured in
// e2e/testdata/real/version.json reports it (fields in its order).
func versionInfo() any {
	return struct {
		Major                 string `json:"major"`
		Minor                 string `json:"minor"`
		EmulationMajor        string `json:"emulationMajor"`
		EmulationMinor        string `json:"emulationMinor"`
		MinCompatibilityMajor string `json:"minCompatibilityMajor"`
		MinCompatibilityMinor string `json:"minCompatibilityMinor"`
		GitVersion            string `json:"gitVersion"`
		GitCommit             string `json:"gitCommit"`
		GitTreeState          string `json:"gitTreeState"`
		BuildDate             string `json:"buildDate"`
		GoVersion             string `json:"goVersion"`
		Compiler              string `json:"compiler"`
		Platform              string `json:"platform"`
	}{"1", "37", "1", "37", "1", "36", "v1.37.2", "", "clean", "1970-01-01T00:00:00Z",
		runtime.Version(), runtime.Compiler, runtime.GOOS + "/" + runtime.GOARCH}
}

func wantsAggregated(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		p := strings.ReplaceAll(part, " ", "")
		if strings.Contains(p, "as=APIGroupDiscoveryList") && strings.Contains(p, "g=apidiscovery.k8s.io") && strings.Contains(p, "v=v2") {
			return true
		}
	}
	return false
}

func apiGroupDoc(g registry.APIGroup) apiGroupDocument {
	versions := []groupVersionForDiscovery{}
	for _, v := range g.Versions {
		versions = append(versions, groupVersionForDiscovery{GroupVersion: request.GV(g.Name, v.Version), Version: v.Version})
	}
	return apiGroupDocument{Name: g.Name, Versions: versions, PreferredVersion: versions[0]}
}

// ServeGroupVersion serves the APIResourceList of /api/v1 or
// /apis/g/v.
func (s *Server) ServeGroupVersion(w http.ResponseWriter, r *http.Request, group, version string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		request.WriteStatus(w, r, apistatus.MethodNotAllowed())
		return
	}
	for _, g := range s.registry.Snapshot() {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != version {
				continue
			}
			resources := []apiResourceDoc{}
			for _, res := range v.Resources {
				resources = append(resources, legacyResourceDoc(res, res.Name, res.Singular, res.Kind, "", "", res.Verbs, true))
				for _, sub := range res.Subresources {
					resources = append(resources, legacyResourceDoc(res, res.Name+"/"+sub.Name, "", sub.Kind, sub.Group, sub.Version, sub.Verbs, false))
				}
			}
			doc := struct {
				Kind         string           `json:"kind"`
				APIVersion   string           `json:"apiVersion,omitempty"`
				GroupVersion string           `json:"groupVersion"`
				Resources    []apiResourceDoc `json:"resources"`
			}{Kind: "APIResourceList", GroupVersion: request.GV(group, version), Resources: resources}
			if group != "" {
				doc.APIVersion = "v1"
			}
			request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r)}, http.StatusOK, request.Marshal(doc))
			return
		}
	}
	request.WriteStatus(w, r, apistatus.PathNotFound())
}

// apiResourceDoc is one entry of an APIResourceList, fields in the real
// server's order.
type apiResourceDoc struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}

func legacyResourceDoc(res *registry.Resource, name, singular, kind, group, version string, verbs []string, main bool) apiResourceDoc {
	d := apiResourceDoc{Name: name, SingularName: singular, Namespaced: res.Namespaced, Group: group, Version: version, Kind: kind, Verbs: verbs}
	if main {
		d.ShortNames, d.Categories, d.StorageVersionHash = res.ShortNames, res.Categories, res.StorageVersionHash
	}
	return d
}

// The aggregated discovery document (apidiscovery.k8s.io/v2).
type (
	aggregatedGroup struct {
		Metadata map[string]string   `json:"metadata"`
		Versions []aggregatedVersion `json:"versions"`
	}
	aggregatedVersion struct {
		Version   string               `json:"version"`
		Resources []aggregatedResource `json:"resources"`
		Freshness string               `json:"freshness"`
	}
	aggregatedResource struct {
		Resource         string                  `json:"resource"`
		ResponseKind     responseKind            `json:"responseKind"`
		Scope            string                  `json:"scope"`
		SingularResource string                  `json:"singularResource"`
		Verbs            []string                `json:"verbs"`
		ShortNames       []string                `json:"shortNames,omitempty"`
		Categories       []string                `json:"categories,omitempty"`
		Subresources     []aggregatedSubresource `json:"subresources,omitempty"`
	}
	aggregatedSubresource struct {
		Subresource  string       `json:"subresource"`
		ResponseKind responseKind `json:"responseKind"`
		Verbs        []string     `json:"verbs"`
	}
	responseKind struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	}
)

// writeAggregated serves the apidiscovery.k8s.io/v2 document for /api
// (core) or /apis (every other group).
func (s *Server) writeAggregated(w http.ResponseWriter, r *http.Request, core bool) {
	items := []aggregatedGroup{}
	for _, g := range s.registry.Snapshot() {
		if (g.Name == "") != core {
			continue
		}
		item := aggregatedGroup{Metadata: map[string]string{}}
		if !core {
			item.Metadata["name"] = g.Name
		}
		for _, v := range g.Versions {
			av := aggregatedVersion{Version: v.Version, Resources: []aggregatedResource{}, Freshness: "Current"}
			for _, res := range v.Resources {
				scope := "Cluster"
				if res.Namespaced {
					scope = "Namespaced"
				}
				ar := aggregatedResource{
					Resource: res.Name, ResponseKind: responseKind{Kind: res.Kind}, Scope: scope,
					SingularResource: res.Singular, Verbs: res.Verbs, ShortNames: res.ShortNames, Categories: res.Categories,
				}
				for _, sub := range res.Subresources {
					ar.Subresources = append(ar.Subresources, aggregatedSubresource{
						Subresource: sub.Name, ResponseKind: responseKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind}, Verbs: sub.Verbs,
					})
				}
				av.Resources = append(av.Resources, ar)
			}
			item.Versions = append(item.Versions, av)
		}
		items = append(items, item)
	}
	body := request.Marshal(map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": map[string]any{}, "items": items})
	sum := sha256.Sum256(body)
	w.Header().Set("Etag", `"`+strings.ToUpper(hex.EncodeToString(sum[:]))+`"`)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "public")
	request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r), ContentType: MediaAggregated}, http.StatusOK, body)
}
