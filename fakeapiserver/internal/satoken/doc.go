// Package satoken issues and checks service account tokens, as the real
// API server's TokenRequest (serviceaccounts/{name}/token) and its token
// authenticator do: signed JWTs whose claims name the service account,
// its namespace and uid, the audiences and the expiry asked for.
//
// The real server signs with the key it is given (RS256 for an RSA key);
// the fake server has no key file, so an Issuer makes an ECDSA P-256 key
// the first time it signs and signs ES256: a client reads the same
// claims, and generating the key costs microseconds, not the tenth of a
// second an RSA key would.
//
// Files: token.go (Issuer, Claims, Issue, Verify), doc.go.
package satoken
