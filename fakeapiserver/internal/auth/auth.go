package auth

import (
	"context"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/meta"
)

// User is who a request acts as.
type User struct {
	Name   string
	Groups []string
}

// ForbidRule denies matching requests with 403. Empty fields match
// anything; Verb uses Kubernetes verbs (get, list, watch, create, update,
// patch, delete, deletecollection).
type ForbidRule struct {
	User string `json:"user,omitempty"`
	request.Match
}

// ImpersonateRule lets a user, or the members of a group, act as other
// users (the Impersonate-* headers). Without a rule only members of
// system:masters may impersonate, as only cluster admins may on a real
// cluster.
type ImpersonateRule struct {
	User  string `json:"user,omitempty"`
	Group string `json:"group,omitempty"`
}

// mastersGroup is the group whose members may do anything, impersonate
// included.
const mastersGroup = "system:masters"

// Authenticator authenticates and authorizes requests: bearer tokens,
// client certificates signed by the generated CA, impersonation and the
// forbid rules. It is read-only after New.
type Authenticator struct {
	tokens             map[string]User
	clientCertificates bool
	forbid             []ForbidRule
	impersonators      []ImpersonateRule
	// certs is the generated TLS material (nil without TLS).
	certs *Certs
	// serviceAccounts, when set, authenticates service account tokens
	// the server issued.
	serviceAccounts func(token string) (User, bool)
}

// SetServiceAccountTokens makes the authenticator accept the service
// account tokens verify accepts (set once, before serving).
func (s *Authenticator) SetServiceAccountTokens(verify func(token string) (User, bool)) {
	s.serviceAccounts = verify
}

// New returns the authenticator of a server's options; certs
// is nil without TLS.
func New(tokens map[string]User, clientCertificates bool, forbid []ForbidRule, impersonators []ImpersonateRule, c *Certs) *Authenticator {
	return &Authenticator{tokens: tokens, clientCertificates: clientCertificates, forbid: forbid, impersonators: impersonators, certs: c}
}

// mayImpersonate reports whether acting may impersonate: a member of
// system:masters, or a user an ImpersonateRule names, and no forbid rule
// on the verb impersonate.
func (s *Authenticator) mayImpersonate(acting User) bool {
	if s.Forbidden(acting, "impersonate", request.Info{Resource: "users"}) {
		return false
	}
	if slices.Contains(acting.Groups, mastersGroup) {
		return true
	}
	for _, rule := range s.impersonators {
		if (rule.User != "" && rule.User == acting.Name) || (rule.Group != "" && slices.Contains(acting.Groups, rule.Group)) {
			return true
		}
	}
	return false
}

// Enabled reports whether requests must authenticate.
func (s *Authenticator) Enabled() bool {
	return len(s.tokens) > 0 || s.clientCertificates
}

// Unauthorized is the 401 of a request without valid credentials.
func Unauthorized() *meta.Status {
	return apistatus.New(401, meta.ReasonUnauthorized, "Unauthorized")
}

// Authenticate returns the user a request acts as, after impersonation.
// With authentication off everyone is the anonymous admin.
func (s *Authenticator) Authenticate(r *http.Request) (User, error) {
	if !s.Enabled() {
		return s.impersonate(r, User{Name: "system:admin", Groups: []string{"system:masters", "system:authenticated"}})
	}
	var user *User
	if token, ok := BearerToken(r); ok {
		for t, u := range s.tokens {
			if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
				u := u
				user = &u
			}
		}
		if user == nil && s.serviceAccounts != nil {
			if u, ok := s.serviceAccounts(token); ok {
				user = &u
			}
		}
		if user == nil {
			return User{}, Unauthorized()
		}
	} else if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 && s.clientCertificates {
		c, err := s.verifyClientCertificate(r.TLS.PeerCertificates)
		if err != nil {
			return User{}, Unauthorized()
		}
		user = &User{Name: c.Subject.CommonName, Groups: c.Subject.Organization}
	}
	if user == nil {
		return User{}, Unauthorized()
	}
	user.Groups = append(user.Groups, "system:authenticated")
	return s.impersonate(r, *user)
}

// BearerToken reads the token from Authorization or, for a websocket,
// from the bearer subprotocol.
func BearerToken(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		// As the real server reads it: the header trimmed, split at
		// single spaces; the token is the second word, so "Bearer  t"
		// (two spaces) carries an empty token and authenticates no one.
		parts := strings.SplitN(strings.TrimSpace(h), " ", 3)
		if len(parts) >= 2 && strings.EqualFold(parts[0], "Bearer") && parts[1] != "" {
			return parts[1], true
		}
		return "", false
	}
	if request.IsWebsocketUpgrade(r) {
		if token, ok, _, err := request.WebsocketProtocols(r); err == nil && ok {
			return token, true
		}
	}
	return "", false
}

// impersonate applies the Impersonate-* headers, if the acting user may.
func (s *Authenticator) impersonate(r *http.Request, acting User) (User, error) {
	name := r.Header.Get("Impersonate-User")
	groups := r.Header.Values("Impersonate-Group")
	if name == "" {
		if len(groups) > 0 || r.Header.Get("Impersonate-Uid") != "" {
			return User{}, apistatus.BadRequest("requested impersonation of groups or uid without impersonating a user")
		}
		return acting, nil
	}
	if !s.mayImpersonate(acting) {
		return User{}, errForbidden(acting, "impersonate", request.Info{Resource: "users", Name: name})
	}
	u := User{Name: name, Groups: append(groups, "system:authenticated")}
	return u, nil
}

// Forbidden reports whether a rule denies user the verb on info.
func (s *Authenticator) Forbidden(user User, verb string, info request.Info) bool {
	for _, rule := range s.forbid {
		if rule.User != "" && rule.User != user.Name {
			continue
		}
		if rule.Match.Matches(verb, info) {
			return true
		}
	}
	return false
}

// errForbidden is the real server's 403 wording.
func errForbidden(user User, verb string, info request.Info) *meta.Status {
	what := info.Resource
	if info.Group != "" {
		what += "." + info.Group
	}
	subject := what
	if info.Name != "" {
		subject = fmt.Sprintf("%s %q", what, info.Name)
	}
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	scope := "at the cluster scope"
	if info.Namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", info.Namespace)
	}
	msg := fmt.Sprintf("%s is forbidden: User %q cannot %s resource %q in API group %q %s", subject, user.Name, verb, resource, info.Group, scope)
	st := apistatus.New(403, meta.ReasonForbidden, msg)
	st.Details = &meta.StatusDetails{Name: info.Name, Group: info.Group, Kind: info.Resource}
	return st
}

// userKey is the context key of the authenticated User.
type userKey struct{}

// WithUser returns ctx carrying the user a request acts as.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser stored in ctx.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}

// IsPublicPath lists what needs no credentials (health and version).
func IsPublicPath(p string) bool {
	switch strings.TrimSuffix(p, "/") {
	case "/healthz", "/readyz", "/livez", "/version":
		return true
	}
	return false
}

// Authorize checks the forbid rules for a resource request.
func (s *Authenticator) Authorize(r *http.Request, info request.Info, res *registry.Resource) error {
	if len(s.forbid) == 0 {
		return nil
	}
	user, _ := UserFrom(r.Context())
	if s.Forbidden(user, info.Verb, info) {
		return errForbidden(user, info.Verb, info)
	}
	return nil
}

// KubeconfigUser returns the user entries of the kubeconfig.
func (s *Authenticator) KubeconfigUser() [][2]string {
	var out [][2]string
	if len(s.tokens) > 0 {
		tokens := make([]string, 0, len(s.tokens))
		for t := range s.tokens {
			tokens = append(tokens, t)
		}
		slices.Sort(tokens)
		out = append(out, [2]string{"token", tokens[0]})
	} else if s.certs != nil && s.clientCertificates {
		out = append(out,
			[2]string{"client-certificate-data", base64.StdEncoding.EncodeToString(s.certs.clientCertPEM)},
			[2]string{"client-key-data", base64.StdEncoding.EncodeToString(s.certs.clientKeyPEM)})
	}
	return out
}

// verifyClientCertificate checks the chain a client presented against the
// server's CA for client authentication; the TLS layer only asked for it.
func (s *Authenticator) verifyClientCertificate(chain []*x509.Certificate) (*x509.Certificate, error) {
	intermediates := x509.NewCertPool()
	for _, c := range chain[1:] {
		intermediates.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{
		Roots:         s.certs.caPool,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	return chain[0], nil
}
