package satoken

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const iss = "https://kubernetes.default.svc.cluster.local"

func TestIssueAndVerify(t *testing.T) {
	i := NewIssuer(iss)
	now := time.Unix(1796157194, 0)
	tok, err := i.Issue(Claims{Audiences: []string{"a1", "a2"}, IssuedAt: now, Expiry: now.Add(700 * time.Second),
		ID: "jti-1", Namespace: "default", Name: "bot", UID: "u-1"})
	require.NoError(t, err)

	// The claims read as the real server's do.
	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(body, &p))
	assert.Equal(t, "system:serviceaccount:default:bot", p["sub"])
	assert.Equal(t, iss, p["iss"])
	assert.Equal(t, map[string]any{"namespace": "default", "serviceaccount": map[string]any{"name": "bot", "uid": "u-1"}}, p["kubernetes.io"])

	c, err := i.Verify(tok, []string{"a2"}, now.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, "system:serviceaccount:default:bot", c.Subject())
	assert.Equal(t, "u-1", c.UID)

	_, err = i.Verify(tok, []string{"zzz"}, now)
	assert.EqualError(t, err, `token audiences ["a1" "a2"] is invalid for the target audiences ["zzz"]`)
	_, err = i.Verify(tok, nil, now.Add(701*time.Second))
	assert.EqualError(t, err, "service account token has expired")

	// Another issuer's token, a tampered one and garbage are not ours.
	other, err := NewIssuer(iss).Issue(Claims{IssuedAt: now, Expiry: now.Add(time.Hour)})
	require.NoError(t, err)
	_, err = i.Verify(other, nil, now)
	assert.ErrorIs(t, err, ErrNotMine)
	_, err = i.Verify(parts[0]+"."+parts[1]+"x."+parts[2], nil, now)
	assert.ErrorIs(t, err, ErrNotMine)
	_, err = i.Verify("abc", nil, now)
	assert.ErrorIs(t, err, ErrNotMine)
}

// FuzzVerify feeds Verify arbitrary strings: it answers, never panics.
func FuzzVerify(f *testing.F) {
	i := NewIssuer(iss)
	now := time.Unix(1796157194, 0)
	tok, err := i.Issue(Claims{IssuedAt: now, Expiry: now.Add(time.Hour), Name: "a"})
	require.NoError(f, err)
	f.Add(tok)
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = i.Verify(s, []string{"x"}, now)
	})
}
