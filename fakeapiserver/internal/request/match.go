package request

// Match selects requests (or open watches) by verb, resource and
// namespace; an empty field matches anything. Resource is the plural name,
// optionally qualified by group: "pods", "deployments.apps".
type Match struct {
	Verb      string `json:"verb,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// Matches reports whether a request with verb and info is selected.
func (m Match) Matches(verb string, info Info) bool {
	if m.Verb != "" && m.Verb != verb {
		return false
	}
	if m.Namespace != "" && m.Namespace != info.Namespace {
		return false
	}
	return m.MatchesResource(info.Group, info.Resource)
}

// MatchesResource reports whether the resource (or watch) is selected.
func (m Match) MatchesResource(group, resource string) bool {
	if m.Resource == "" {
		return true
	}
	return m.Resource == resource || m.Resource == resource+"."+group
}
