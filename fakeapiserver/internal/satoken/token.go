package satoken

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Claims is what a token says.
type Claims struct {
	// Audiences the token is for.
	Audiences []string
	// IssuedAt and Expiry bound the token's validity (seconds precision).
	IssuedAt, Expiry time.Time
	// ID is the token's jti.
	ID string
	// Namespace, Name and UID identify the service account.
	Namespace, Name, UID string
	// Bound names the object the token is bound to: its kind ("Pod",
	// "Secret", "Node"), name and uid; empty when unbound.
	BoundKind, BoundName, BoundUID string
}

// Subject is the token's user name: system:serviceaccount:ns:name.
func (c Claims) Subject() string {
	return "system:serviceaccount:" + c.Namespace + ":" + c.Name
}

// Issuer signs and verifies tokens for one issuer URL. It is safe for
// concurrent use.
type Issuer struct {
	issuer string

	once sync.Once
	key  *ecdsa.PrivateKey
	kid  string
	err  error
}

// NewIssuer returns an issuer for the given iss claim (the real server's
// default is https://kubernetes.default.svc.cluster.local).
func NewIssuer(issuer string) *Issuer { return &Issuer{issuer: issuer} }

// URL returns the iss claim the issuer signs.
func (i *Issuer) URL() string { return i.issuer }

func (i *Issuer) init() error {
	i.once.Do(func() {
		i.key, i.err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if i.err != nil {
			return
		}
		der := append(i.key.PublicKey.X.Bytes(), i.key.PublicKey.Y.Bytes()...)
		sum := sha256.Sum256(der)
		i.kid = base64.RawURLEncoding.EncodeToString(sum[:])
	})
	return i.err
}

// header and payload are the JWT parts, in the real server's member
// order.
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

type payload struct {
	Aud        []string      `json:"aud"`
	Exp        int64         `json:"exp"`
	Iat        int64         `json:"iat"`
	Iss        string        `json:"iss"`
	Jti        string        `json:"jti"`
	Kubernetes kubernetesSub `json:"kubernetes.io"`
	Nbf        int64         `json:"nbf"`
	Sub        string        `json:"sub"`
}

type kubernetesSub struct {
	Namespace      string `json:"namespace"`
	Node           *ref   `json:"node,omitempty"`
	Pod            *ref   `json:"pod,omitempty"`
	Secret         *ref   `json:"secret,omitempty"`
	ServiceAccount ref    `json:"serviceaccount"`
}

type ref struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
}

// Issue signs a token with c's claims.
func (i *Issuer) Issue(c Claims) (string, error) {
	if err := i.init(); err != nil {
		return "", fmt.Errorf("signing key: %w", err)
	}
	p := payload{
		Aud: c.Audiences, Exp: c.Expiry.Unix(), Iat: c.IssuedAt.Unix(), Iss: i.issuer, Jti: c.ID,
		Kubernetes: kubernetesSub{Namespace: c.Namespace, ServiceAccount: ref{Name: c.Name, UID: c.UID}},
		Nbf:        c.IssuedAt.Unix(), Sub: c.Subject(),
	}
	if c.BoundKind != "" {
		b := &ref{Name: c.BoundName, UID: c.BoundUID}
		switch c.BoundKind {
		case "Pod":
			p.Kubernetes.Pod = b
		case "Node":
			p.Kubernetes.Node = b
		case "Secret":
			p.Kubernetes.Secret = b
		}
	}
	h, err := json.Marshal(header{Alg: "ES256", Kid: i.kid})
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	signing := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(body)
	sum := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, i.key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// ErrNotMine is returned for a string that is not a token this issuer
// signed: another authenticator may know it.
var ErrNotMine = errors.New("not a service account token of this server")

// maxTokenBytes bounds what Verify parses.
const maxTokenBytes = 16 << 10

// Verify checks a token's signature, issuer and validity at now, and
// that it is meant for one of audiences (none means any). It returns
// ErrNotMine for strings this issuer did not sign, and the real server's
// wording for a token of its own that fails.
func (i *Issuer) Verify(token string, audiences []string, now time.Time) (Claims, error) {
	if len(token) > maxTokenBytes || strings.Count(token, ".") != 2 {
		return Claims{}, ErrNotMine
	}
	if err := i.init(); err != nil {
		return Claims{}, ErrNotMine
	}
	parts := strings.Split(token, ".")
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	pb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || len(sig) != 64 {
		return Claims{}, ErrNotMine
	}
	var h header
	if json.Unmarshal(hb, &h) != nil || h.Alg != "ES256" || h.Kid != i.kid {
		return Claims{}, ErrNotMine
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(&i.key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return Claims{}, ErrNotMine
	}
	var p payload
	if err := json.Unmarshal(pb, &p); err != nil || p.Iss != i.issuer {
		return Claims{}, ErrNotMine
	}
	c := Claims{
		Audiences: p.Aud, IssuedAt: time.Unix(p.Iat, 0), Expiry: time.Unix(p.Exp, 0), ID: p.Jti,
		Namespace: p.Kubernetes.Namespace, Name: p.Kubernetes.ServiceAccount.Name, UID: p.Kubernetes.ServiceAccount.UID,
	}
	if now.Unix() >= p.Exp {
		return c, errors.New("service account token has expired")
	}
	if now.Unix() < p.Nbf {
		return c, errors.New("service account token is not valid yet")
	}
	if len(audiences) > 0 && !intersects(p.Aud, audiences) {
		return c, fmt.Errorf("token audiences %s is invalid for the target audiences %s", quoted(p.Aud), quoted(audiences))
	}
	return c, nil
}

func intersects(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// quoted renders a list as the real server's message does: ["a" "b"].
func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, " ") + "]"
}
