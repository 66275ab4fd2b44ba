// Package auth is the fake API server's authentication and
// authorization, off by default. With bearer tokens or client
// certificates configured, every request needs a valid token or a client
// certificate signed by the server's generated CA (401 otherwise);
// Impersonate-* headers then change who the request acts as; forbid rules
// answer 403 with the real server's message.
//
// It sits above request (a ForbidRule selects requests with a
// request.Match) and apistatus; the root package authenticates each
// request with an Authenticator and passes the User on in the context
// (WithUser, UserFrom).
//
// # Files
//
//   - auth.go: User, ForbidRule, Authenticator (Authenticate, Authorize,
//     Forbidden, the kubeconfig's user entry).
//   - tls.go: Certs, the generated CA, serving and client certificates,
//     and the server's and clients' TLS configurations.
package auth
