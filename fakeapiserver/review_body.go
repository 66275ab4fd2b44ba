package fakeapiserver

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/reviewpb"
)

// readVirtualBody reads the body of a create on a create-only resource as
// JSON. JSON and YAML are read as for any write; for the authorization
// reviews, protobuf is read too, because kubectl's typed clients send it
// and give their users no switch (kubectl auth can-i, can-i --list,
// whoami). A protobuf body of any other kind is the usual 415.
func (s *Server) readVirtualBody(r *http.Request, res *registry.Resource, version string) ([]byte, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && mt == request.MediaProtobuf &&
		reviewpb.Supports(request.GV(res.Group, version), res.Kind) {
		data, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
		if err != nil {
			return nil, err
		}
		out, err := reviewpb.Decode(data)
		switch {
		case errors.Is(err, reviewpb.ErrUnsupportedKind):
			return nil, apistatus.BadRequest(fmt.Sprintf("the protobuf body does not hold a %s: %v", res.Kind, err))
		case err != nil:
			return nil, apistatus.BadRequest(fmt.Sprintf("the protobuf body of the %s could not be read: %v", res.Kind, err))
		}
		return out, nil
	}
	mt, err := request.BodyMediaType(r)
	if err != nil {
		return nil, err
	}
	data, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		return nil, err
	}
	return request.ToJSON(data, mt)
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
