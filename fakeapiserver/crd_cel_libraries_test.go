package fakeapiserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// libCRD's rules call the Kubernetes url, ip and cidr libraries and
// cel-go's lists extension, all true for the first object below.
const libCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"libs.example.net"},"spec":{"group":"example.net","names":{"plural":"libs","kind":"Lib"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
"u":{"type":"string","maxLength":100,"x-kubernetes-validations":[
 {"rule":"isURL(self) && url(self).getScheme() == 'http' && url(self).getHost() == 'example.com:80' && url(self).getHostname() == 'example.com' && url(self).getPort() == '80' && url(self).getEscapedPath() == '/a%20b' && url(self).getQuery()['x'] == ['1', '2']","message":"url parts"}]},
"ip":{"type":"string","maxLength":50,"x-kubernetes-validations":[
 {"rule":"isIP(self) && ip(self).family() == 4 && !ip(self).isLoopback() && ip.isCanonical(self) && cidr('192.168.0.0/16').containsIP(self) && cidr('192.168.0.0/16').containsIP(ip(self)) && string(ip(self)) == self","message":"ip parts"},
 {"rule":"cidr('10.1.2.3/16').masked() == cidr('10.1.0.0/16') && string(cidr('10.1.2.3/16').ip()) == '10.1.2.3' && cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && cidr('10.0.0.0/8').prefixLength() == 8 && isCIDR('1.2.3.0/24') && !isIP('x')","message":"cidr parts"}]},
"bad":{"type":"string","maxLength":50,"x-kubernetes-validations":[{"rule":"ip(self).family() == 4"}]},
"l":{"type":"array","maxItems":10,"items":{"type":"integer"},"x-kubernetes-validations":[
 {"rule":"self.sort() == [1, 3, 3] && self.distinct() == [3, 1] && self.reverse() == [3, 1, 3] && self.slice(0, 1) == [3] && lists.range(3) == [0, 1, 2] && self.first() == optional.of(3)","message":"lists"}]}
}}}}}}]}}`

// The answers are a real kube-apiserver v1.37.2's.
func TestCustomResourceRuleLibraries(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, libCRD)
	const libs = "/apis/example.net/v1/namespaces/default/libs"
	c.mustCreate(libs, `{"apiVersion":"example.net/v1","kind":"Lib","metadata":{"name":"a"},"spec":{"u":"http://example.com:80/a%20b?x=1&x=2","ip":"192.168.0.1","l":[3,1,3]}}`)
	r := c.post(libs, `{"apiVersion":"example.net/v1","kind":"Lib","metadata":{"name":"b"},"spec":{"u":"not a url","bad":"::1%eth0"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	// The real server orders the causes as Go map iteration does.
	var got []string
	for _, cause := range r.status(t).Details.Causes {
		got = append(got, cause.Field+": "+cause.Message)
	}
	assert.ElementsMatch(t, []string{
		`spec.bad: Invalid value: "string": IP address "::1%eth0" with zone value is not allowed evaluating rule: ip(self).family() == 4`,
		`spec.u: Invalid value: "not a url": url parts`,
	}, got)
}
