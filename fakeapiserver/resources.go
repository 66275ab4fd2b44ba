package fakeapiserver

import "github.com/kubecache/kubecache/fakeapiserver/internal/registry"

// Resource describes one served resource: where it lives in the API, what
// discovery says about it and which behaviour beyond plain storage it
// gets. The server's registry (internal/registry) holds the real server's
// built-in resources; CustomResourceDefinitions add more at run time.
type Resource = registry.Resource

// Subresource is one entry of a resource's subresources in discovery.
type Subresource = registry.Subresource

// NameRule is how metadata.name is validated.
type NameRule = registry.NameRule

// The name rules the real server uses.
const (
	// NameSubdomain: an RFC 1123 subdomain (most resources).
	NameSubdomain = registry.NameSubdomain
	// NameLabel: an RFC 1123 label (namespaces).
	NameLabel = registry.NameLabel
	// NameDNS1035: an RFC 1035 label, starting with a letter (services).
	NameDNS1035 = registry.NameDNS1035
	// NamePathSegment: anything that fits in a URL path segment (custom
	// resources and a few others).
	NamePathSegment = registry.NamePathSegment
)
