package request

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// bearerProtocolPrefix starts the websocket subprotocol that carries a
// bearer token (base64url-encoded after the prefix).
const bearerProtocolPrefix = "base64url.bearer.authorization.k8s.io."

// IsWebsocketUpgrade reports whether r asks to upgrade to a websocket.
func IsWebsocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") &&
		strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade")
}

// WebsocketProtocols splits the offered subprotocols into the bearer token
// (if any) and the rest.
func WebsocketProtocols(r *http.Request) (token string, hasToken bool, rest []string, err error) {
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if enc, ok := strings.CutPrefix(p, bearerProtocolPrefix); ok {
				b, derr := base64.RawURLEncoding.DecodeString(enc)
				if derr != nil {
					return "", false, nil, derr
				}
				token, hasToken = string(b), true
				continue
			}
			rest = append(rest, p)
		}
	}
	return token, hasToken, rest, nil
}
