package fakeapiserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// readVirtualBody reads the body of a create on a create-only resource
// (reviews, evictions, token requests, bindings) as JSON: JSON, YAML and
// protobuf are read as for any write.
func (s *Server) readVirtualBody(r *http.Request, res *registry.Resource) ([]byte, error) {
	return s.readBodyJSON(r, res.Kind, res.Custom)
}

// readBodyJSON reads a request body of kind (a custom resource's when
// custom) as JSON.
func (s *Server) readBodyJSON(r *http.Request, kind string, custom bool) ([]byte, error) {
	mt, err := request.BodyMediaType(r)
	if err != nil {
		return nil, err
	}
	data, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		return nil, err
	}
	return request.ToJSON(data, mt, kind, custom, s.opts.MaxRequestBodyBytes)
}

// rulesReviewStatus is the status of a SelfSubjectRulesReview: everything
// is allowed, as on a server whose user is a cluster admin. Forbid rules
// are denials, which rules cannot express, so when one applies to user the
// answer is marked incomplete and names them, as a real server does when
// an authorizer cannot list its rules.
func (s *Server) rulesReviewStatus(user User) map[string]any {
	st := map[string]any{
		"resourceRules":    []any{map[string]any{"verbs": []string{"*"}, "apiGroups": []string{"*"}, "resources": []string{"*"}}},
		"nonResourceRules": []any{map[string]any{"verbs": []string{"*"}, "nonResourceURLs": []string{"*"}}},
		"incomplete":       false,
	}
	var denied []string
	for _, rule := range s.opts.Forbid {
		if rule.User != "" && rule.User != user.Name {
			continue
		}
		denied = append(denied, describeMatch(rule.Match))
	}
	if len(denied) > 0 {
		st["incomplete"] = true
		st["evaluationError"] = fmt.Sprintf("forbid rules deny %s; rules cannot list denials", strings.Join(denied, "; "))
	}
	return st
}

// describeMatch words a Match for a message: "create pods in any
// namespace".
func describeMatch(m request.Match) string {
	verb, res, ns := m.Verb, m.Resource, "in any namespace"
	if verb == "" {
		verb = "every verb on"
	}
	if res == "" {
		res = "every resource"
	}
	if m.Namespace != "" {
		ns = "in namespace " + m.Namespace
	}
	return verb + " " + res + " " + ns
}
