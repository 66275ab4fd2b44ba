package fakeapiserver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/satoken"
	"github.com/kubecache/kubecache/meta"
)

// TokenRequest (POST serviceaccounts/{name}/token) and the service
// account tokens the server's authenticator and TokenReview accept, as on
// the real server (internal/satoken).

// tokenIssuer is the iss claim of the tokens, the real server's default.
const tokenIssuer = "https://kubernetes.default.svc.cluster.local"

// Token lifetimes the real server allows.
const (
	minTokenSeconds = 600
	maxTokenSeconds = 1 << 32
)

// handleTokenRequest issues a token for a stored ServiceAccount.
func (s *Server) handleTokenRequest(w http.ResponseWriter, r *http.Request, info request.Info) {
	n, err := request.Negotiate(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	body, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	mt, err := request.BodyMediaType(r)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	if body, err = request.ToJSON(body, mt, "TokenRequest", false, s.opts.MaxRequestBodyBytes); err != nil {
		request.WriteError(w, r, err)
		return
	}
	parsed, err := jsonv.Parse(body)
	if err != nil || parsed.Value.Kind != jsonv.Object {
		request.WriteStatus(w, r, apistatus.BadRequest("the body of the request is not a TokenRequest"))
		return
	}
	sa := s.store.Get("/serviceaccounts", info.Namespace+"/"+info.Name)
	if sa == nil {
		request.WriteStatus(w, r, apistatus.NotFound(apistatus.GroupResource{Resource: "serviceaccounts"}, info.Name))
		return
	}
	spec := parsed.Value.Get("spec")
	seconds := int64(3600)
	var audiences []string
	if spec != nil && spec.Kind == jsonv.Object {
		if e := spec.Get("expirationSeconds"); e != nil && e.Kind == jsonv.Number {
			fmt.Sscan(e.Str, &seconds)
		}
		if a := spec.Get("audiences"); a != nil && a.Kind == jsonv.Array {
			for _, v := range a.Arr {
				audiences = append(audiences, v.Str)
			}
		}
	}
	switch {
	case seconds < minTokenSeconds:
		request.WriteStatus(w, r, apistatus.Invalid("authentication.k8s.io", "TokenRequest", "", []apistatus.FieldError{
			apistatus.FieldInvalidRaw("spec.expirationSeconds", fmt.Sprint(seconds), "may not specify a duration less than 10 minutes")}))
		return
	case seconds > maxTokenSeconds:
		request.WriteStatus(w, r, apistatus.Invalid("authentication.k8s.io", "TokenRequest", "", []apistatus.FieldError{
			apistatus.FieldInvalidRaw("spec.expirationSeconds", fmt.Sprint(seconds), "may not specify a duration larger than 2^32 seconds")}))
		return
	}
	if len(audiences) == 0 {
		audiences = []string{tokenIssuer}
	}
	now := s.clock.Now().Truncate(time.Second)
	exp := now.Add(time.Duration(seconds) * time.Second)
	token, err := s.saTokens.Issue(satoken.Claims{Audiences: audiences, IssuedAt: now, Expiry: exp, ID: s.newUID(),
		Namespace: info.Namespace, Name: info.Name, UID: string(sa.Meta.UID)})
	if err != nil {
		request.WriteError(w, r, apistatus.Internal(err))
		return
	}
	out := map[string]any{
		"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
		"metadata": map[string]any{"name": info.Name, "namespace": info.Namespace, "uid": sa.Meta.UID, "creationTimestamp": sa.Meta.CreationTimestamp},
		"spec":     map[string]any{"audiences": audiences, "expirationSeconds": seconds, "boundObjectRef": nil},
		"status":   map[string]any{"token": token, "expirationTimestamp": meta.NewTime(exp)},
	}
	request.WriteBody(w, n, http.StatusCreated, request.Marshal(out))
}

// serviceAccountUser authenticates a service account token for API
// requests (audience: the issuer, the real server's API audience).
func (s *Server) serviceAccountUser(token string) (auth.User, bool) {
	c, err := s.saTokens.Verify(token, []string{tokenIssuer}, s.clock.Now())
	if err != nil {
		return auth.User{}, false
	}
	return auth.User{Name: c.Subject(), Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + c.Namespace}}, true
}

// reviewServiceAccountToken is a TokenReview's status for a token this
// server issued (ok false when it did not issue it).
func (s *Server) reviewServiceAccountToken(token string, audiences []string) (map[string]any, bool) {
	want := audiences
	if len(want) == 0 {
		want = []string{tokenIssuer}
	}
	c, err := s.saTokens.Verify(token, want, s.clock.Now())
	if err == satoken.ErrNotMine {
		return nil, false
	}
	if err != nil {
		return map[string]any{"user": map[string]any{}, "error": "[invalid bearer token, " + err.Error() + "]"}, true
	}
	st := map[string]any{"authenticated": true, "user": map[string]any{
		"username": c.Subject(), "uid": c.UID,
		"groups": []string{"system:serviceaccounts", "system:serviceaccounts:" + c.Namespace, "system:authenticated"},
		"extra":  map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=" + c.ID}},
	}}
	if len(audiences) > 0 {
		st["audiences"] = audiences
	} else {
		st["audiences"] = want
	}
	return st, true
}
