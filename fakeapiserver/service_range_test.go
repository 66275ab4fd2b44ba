package fakeapiserver

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceRangeFull fills a /28 service range (13 addresses besides
// the kubernetes Service's) and checks the answers a real kube-apiserver
// v1.37.2 started with --service-cluster-ip-range=10.96.0.0/28 gave: the
// next Service, one with a generated name and an ExternalName Service
// turned ClusterIP are a 500 InternalError naming the Service, while a
// dry run is still created with the range's network address.
func TestServiceRangeFull(t *testing.T) {
	_, c := newTestServer(t, Options{ServiceCIDR: "10.96.0.0/28"})
	const svcs = "/api/v1/namespaces/default/services"
	for i := 1; i <= 13; i++ {
		c.mustCreate(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s`+strconv.Itoa(i)+`"},"spec":{"ports":[{"port":80}]}}`)
	}
	full := func(r response, name string) {
		t.Helper()
		require.Equal(t, http.StatusInternalServerError, r.code, "%s", r.body)
		msg := `failed to allocate a serviceIP for Service "` + name + `": range is full`
		assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: `+jsonEscape(msg)+`",`+
			`"reason":"InternalError","details":{"causes":[{"message":"`+jsonEscape(msg)+`"}]},"code":500}`, string(r.body))
	}
	full(c.post(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s14"},"spec":{"ports":[{"port":80}]}}`), "s14")

	r := c.post(svcs+"?dryRun=All", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"dry"},"spec":{"ports":[{"port":80}]}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	assert.Equal(t, "10.96.0.0", r.object(t)["spec"].(map[string]any)["clusterIP"])

	r = c.post(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"generateName":"gen-"},"spec":{"ports":[{"port":80}]}}`)
	require.Equal(t, http.StatusInternalServerError, r.code, "%s", r.body)
	assert.Regexp(t, `^Internal error occurred: failed to allocate a serviceIP for Service "gen-[a-z0-9]{5}": range is full$`, r.status(t).Message)

	c.mustCreate(svcs, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"example.com"}}`)
	full(c.do(http.MethodPatch, svcs+"/ext", `{"spec":{"type":"ClusterIP","externalName":null,"ports":[{"port":80}]}}`, "Content-Type", "application/merge-patch+json"), "ext")
}

// jsonEscape quotes s for a JSON string literal, without the quotes.
func jsonEscape(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
