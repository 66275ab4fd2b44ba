package discovery

// The legacy discovery documents as types, so that their members come in
// the real server's order (kind and apiVersion first).

// apiVersionsDocument is /api: the core group's versions.
type apiVersionsDocument struct {
	Kind                       string                      `json:"kind"`
	Versions                   []string                    `json:"versions"`
	ServerAddressByClientCIDRs []serverAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

type serverAddressByClientCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

// apiVersions is /api as served to a client that reached host.
func apiVersions(host string) apiVersionsDocument {
	return apiVersionsDocument{
		Kind:                       "APIVersions",
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []serverAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: host}},
	}
}

// apiGroupList is /apis.
type apiGroupList struct {
	Kind       string             `json:"kind"`
	APIVersion string             `json:"apiVersion"`
	Groups     []apiGroupDocument `json:"groups"`
}

// apiGroupDocument is one group: an item of /apis, or /apis/<group> with
// kind and apiVersion set.
type apiGroupDocument struct {
	Kind             string                     `json:"kind,omitempty"`
	APIVersion       string                     `json:"apiVersion,omitempty"`
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}
