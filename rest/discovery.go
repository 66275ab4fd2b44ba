package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
)

// This file reads the server's discovery documents (which resources it
// serves, in which groups and versions, under which names) and resolves
// what a user types, as kubectl does: "pods", "po", "pod",
// "deployments.apps", "deploy", "Deployment", a custom resource's plural.
// Nothing is built in: every name comes from the server.

// APIResource is one resource a server serves: the group, version and
// plural name its URLs use, the kind of its objects, and the other names
// it answers to.
type APIResource struct {
	Group        string // "" for the core group
	Version      string
	Resource     string // plural, as in URLs: "deployments"
	Kind         string // "Deployment"
	SingularName string // "deployment"
	Namespaced   bool
	Verbs        []string
	ShortNames   []string
	Categories   []string
	// Subresources lists the subresources ("status", "scale") the
	// resource has.
	Subresources []string
}

// GroupResource returns "deployments.apps", or "pods" for the core group.
func (r APIResource) GroupResource() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// APIVersion returns "apps/v1", or "v1" for the core group.
func (r APIResource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// Discovery is a snapshot of what a server serves, from Client.Discover.
// It does not change; discover again to see new resources (a custom
// resource definition just created).
type Discovery struct {
	// Resources holds every resource of every group version, in the
	// server's priority order: the core group first, then the groups as
	// listed by /apis, each group's preferred version first.
	Resources []APIResource
	// Failed maps a group version ("metrics.k8s.io/v1beta1") to the error
	// that kept it out of Resources: an aggregated API server that is down
	// makes discovery partial, not fail.
	Failed map[string]error

	preferred map[string]string // group → preferred version
}

// UnknownResourceError is returned by Resolve for a word that names no
// resource the server serves. Its message is kubectl's.
type UnknownResourceError struct {
	Word string
}

// Error returns `the server doesn't have a resource type "<word>"`.
func (e *UnknownResourceError) Error() string {
	return fmt.Sprintf("the server doesn't have a resource type %q", e.Word)
}

// Is makes errors.Is(err, ErrUnknownResource) true.
func (e *UnknownResourceError) Is(target error) bool { return target == ErrUnknownResource }

// ErrUnknownResource matches every *UnknownResourceError with errors.Is.
var ErrUnknownResource = errors.New("unknown resource type")

// aggregatedAccept asks for aggregated discovery (v2) and accepts the
// legacy documents.
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// Discover reads the server's discovery documents: /api and /apis,
// aggregated (one request each) when the server offers it, else the legacy
// documents and one request per group version.
func (c *Client) Discover(ctx context.Context) (*Discovery, error) {
	d := &Discovery{Failed: map[string]error{}, preferred: map[string]string{}}
	for _, root := range []string{"/api", "/apis"} {
		res := c.Get().AbsPath(root).SetHeader("Accept", aggregatedAccept).Do(ctx)
		body, err := res.Raw()
		if err != nil {
			if root == "/apis" && IsNotFound(err) {
				continue // a server with only the core group
			}
			return nil, fmt.Errorf("discovery: %w", err)
		}
		if isAggregated(res.Header().Get("Content-Type")) {
			if err := d.addAggregated(body); err != nil {
				return nil, fmt.Errorf("discovery: %s: %w", root, err)
			}
			continue
		}
		if err := d.addLegacy(ctx, c, root, body); err != nil {
			return nil, fmt.Errorf("discovery: %s: %w", root, err)
		}
	}
	return d, nil
}

// isAggregated reports whether a response Content-Type is the aggregated
// discovery document.
func isAggregated(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json" &&
		params["g"] == "apidiscovery.k8s.io" && params["as"] == "APIGroupDiscoveryList"
}

// The aggregated discovery document (apidiscovery.k8s.io/v2).
type aggregatedList struct {
	Kind  string            `json:"kind"`
	Items []aggregatedGroup `json:"items"`
}

type aggregatedGroup struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Versions []struct {
		Version   string `json:"version"`
		Freshness string `json:"freshness"`
		Resources []struct {
			Resource         string `json:"resource"`
			SingularResource string `json:"singularResource"`
			ResponseKind     *struct {
				Group   string `json:"group"`
				Version string `json:"version"`
				Kind    string `json:"kind"`
			} `json:"responseKind"`
			Scope        string   `json:"scope"`
			Verbs        []string `json:"verbs"`
			ShortNames   []string `json:"shortNames"`
			Categories   []string `json:"categories"`
			Subresources []struct {
				Subresource string `json:"subresource"`
			} `json:"subresources"`
		} `json:"resources"`
	} `json:"versions"`
}

func (d *Discovery) addAggregated(body []byte) error {
	var list aggregatedList
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("decode APIGroupDiscoveryList: %w", err)
	}
	if list.Kind != "APIGroupDiscoveryList" {
		return fmt.Errorf("got kind %q, want APIGroupDiscoveryList", list.Kind)
	}
	for _, g := range list.Items {
		group := g.Metadata.Name
		for i, v := range g.Versions {
			if i == 0 {
				d.setPreferred(group, v.Version)
			}
			for _, r := range v.Resources {
				res := APIResource{
					Group:        group,
					Version:      v.Version,
					Resource:     r.Resource,
					SingularName: r.SingularResource,
					Namespaced:   r.Scope == "Namespaced",
					Verbs:        r.Verbs,
					ShortNames:   r.ShortNames,
					Categories:   r.Categories,
				}
				if r.ResponseKind != nil {
					res.Kind = r.ResponseKind.Kind
				}
				for _, s := range r.Subresources {
					res.Subresources = append(res.Subresources, s.Subresource)
				}
				d.Resources = append(d.Resources, res)
			}
		}
	}
	return nil
}

// The legacy discovery documents.
type (
	legacyVersions struct {
		Versions []string `json:"versions"`
	}
	legacyGroupList struct {
		Groups []struct {
			Name     string `json:"name"`
			Versions []struct {
				GroupVersion string `json:"groupVersion"`
				Version      string `json:"version"`
			} `json:"versions"`
			PreferredVersion struct {
				Version string `json:"version"`
			} `json:"preferredVersion"`
		} `json:"groups"`
	}
	legacyResourceList struct {
		GroupVersion string `json:"groupVersion"`
		Resources    []struct {
			Name         string   `json:"name"`
			SingularName string   `json:"singularName"`
			Namespaced   bool     `json:"namespaced"`
			Kind         string   `json:"kind"`
			Verbs        []string `json:"verbs"`
			ShortNames   []string `json:"shortNames"`
			Categories   []string `json:"categories"`
		} `json:"resources"`
	}
)

// addLegacy reads a legacy /api or /apis document and the resource list of
// every group version it names.
func (d *Discovery) addLegacy(ctx context.Context, c *Client, root string, body []byte) error {
	type gv struct{ group, version string }
	var gvs []gv
	if root == "/api" {
		var v legacyVersions
		if err := json.Unmarshal(body, &v); err != nil {
			return fmt.Errorf("decode APIVersions: %w", err)
		}
		for i, ver := range v.Versions {
			if i == 0 {
				d.setPreferred("", ver)
			}
			gvs = append(gvs, gv{"", ver})
		}
	} else {
		var l legacyGroupList
		if err := json.Unmarshal(body, &l); err != nil {
			return fmt.Errorf("decode APIGroupList: %w", err)
		}
		for _, g := range l.Groups {
			pref := g.PreferredVersion.Version
			if pref == "" && len(g.Versions) > 0 {
				pref = g.Versions[0].Version
			}
			d.setPreferred(g.Name, pref)
			// The preferred version first.
			for _, v := range g.Versions {
				if v.Version == pref {
					gvs = append(gvs, gv{g.Name, v.Version})
				}
			}
			for _, v := range g.Versions {
				if v.Version != pref {
					gvs = append(gvs, gv{g.Name, v.Version})
				}
			}
		}
	}
	for _, x := range gvs {
		req := c.Get().Version(x.version)
		if x.group != "" {
			req = req.Group(x.group)
		}
		name := APIResource{Group: x.group, Version: x.version}.APIVersion()
		var l legacyResourceList
		if err := req.Do(ctx).Into(&l); err != nil {
			d.Failed[name] = err
			continue
		}
		byName := map[string]int{}
		for _, r := range l.Resources {
			if parent, sub, ok := strings.Cut(r.Name, "/"); ok {
				if i, ok := byName[parent]; ok {
					d.Resources[i].Subresources = append(d.Resources[i].Subresources, sub)
				}
				continue
			}
			byName[r.Name] = len(d.Resources)
			d.Resources = append(d.Resources, APIResource{
				Group:        x.group,
				Version:      x.version,
				Resource:     r.Name,
				Kind:         r.Kind,
				SingularName: r.SingularName,
				Namespaced:   r.Namespaced,
				Verbs:        r.Verbs,
				ShortNames:   r.ShortNames,
				Categories:   r.Categories,
			})
		}
	}
	return nil
}

func (d *Discovery) setPreferred(group, version string) {
	if _, ok := d.preferred[group]; !ok {
		d.preferred[group] = version
	}
}

// PreferredVersion returns the version the server prefers for group, or ""
// for a group it does not serve.
func (d *Discovery) PreferredVersion(group string) string { return d.preferred[group] }

// Resolve finds the resource a user means by word, as kubectl does: a
// plural ("pods"), singular ("pod"), short name ("po", "deploy") or kind
// ("Deployment"), matched without regard to case, optionally qualified by
// group ("deployments.apps", "Deployment.apps") or by version and group
// ("deployments.v1.apps"). Without a version the group's preferred version
// is used; when several groups serve the word, the first in the server's
// priority order wins (the core group before the others).
//
// A word that names nothing gives an *UnknownResourceError:
// `the server doesn't have a resource type "foo"`.
func (d *Discovery) Resolve(word string) (APIResource, error) {
	w := strings.ToLower(strings.TrimSpace(word))
	if w != "" {
		// Unqualified first: "pods", "deploy", "Deployment".
		if r, ok := d.find(w, nil, ""); ok {
			return r, nil
		}
		// "name.group" and "name.version.group".
		if name, rest, ok := strings.Cut(w, "."); ok {
			group := rest
			if r, ok := d.find(name, &group, ""); ok {
				return r, nil
			}
			if version, group, ok := strings.Cut(rest, "."); ok {
				if r, ok := d.find(name, &group, version); ok {
					return r, nil
				}
			}
		}
	}
	return APIResource{}, &UnknownResourceError{Word: word}
}

// find looks for name among the resources of group (any group when nil)
// and version (the preferred one when empty). Plurals win over singulars,
// singulars over short names, short names over kinds.
func (d *Discovery) find(name string, group *string, version string) (APIResource, bool) {
	matchers := []func(APIResource) bool{
		func(r APIResource) bool { return r.Resource == name },
		func(r APIResource) bool { return r.SingularName == name },
		func(r APIResource) bool {
			for _, s := range r.ShortNames {
				if strings.ToLower(s) == name {
					return true
				}
			}
			return false
		},
		func(r APIResource) bool { return strings.ToLower(r.Kind) == name },
	}
	for _, match := range matchers {
		for _, r := range d.Resources {
			if group != nil && r.Group != *group {
				continue
			}
			if version == "" && r.Version != d.preferred[r.Group] {
				continue
			}
			if version != "" && r.Version != version {
				continue
			}
			if match(r) {
				return r, true
			}
		}
	}
	return APIResource{}, false
}

// ForKind finds the resource whose objects have the given apiVersion
// ("apps/v1", "v1") and kind ("Deployment"), as written in an object's
// TypeMeta. Kinds match exactly.
func (d *Discovery) ForKind(apiVersion, kind string) (APIResource, error) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	for _, r := range d.Resources {
		if r.Group == group && r.Version == version && r.Kind == kind {
			return r, nil
		}
	}
	return APIResource{}, fmt.Errorf("no resource of kind %q in %q: %w", kind, apiVersion, ErrUnknownResource)
}

// For points the request at a discovered resource: its group, version and
// plural name. Set the namespace separately when res.Namespaced.
func (r *Request) For(res APIResource) *Request {
	return r.Group(res.Group).Version(res.Version).Resource(res.Resource)
}
