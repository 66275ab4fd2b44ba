package builtin

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// pemCA is a self-signed P-256 CA certificate.
const pemCA = `-----BEGIN CERTIFICATE-----
MIIBejCCASGgAwIBAgIUJkIGD3gyUqxxcIMINIrCMgNBMv8wCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHdGVzdC1jYTAgFw0yNjEyMDIwNjI3MjFaGA8yMTI2MTEwODA2
MjcyMVowEjEQMA4GA1UEAwwHdGVzdC1jYTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABPnxZ70iKmyFnts3B558Ng7/0XY65ZPyIQFwaM5QS0Q/l8wLfLm/0w2Bo8je
yU4npIuxS7WNhksFpOJFVVpNOdyjUzBRMB0GA1UdDgQWBBSVUHNRvit4CMxwbxbf
J823DngeRzAfBgNVHSMEGDAWgBSVUHNRvit4CMxwbxbfJ823DngeRzAPBgNVHRMB
Af8EBTADAQH/MAoGCCqGSM49BAMCA0cAMEQCH0Ytza/g1SYuZxKGxluAwRHM4hQm
IJgzRILWRKk1Z4sCIQD+sKM3FeNr+JMljdY0PzHx3EOqx/lEU8jQhkVfPTExBg==
-----END CERTIFICATE-----
`

// TestValidateVersionKinds checks the rules of ControllerRevisions,
// APIServices, StorageVersionMigrations and VolumeAttributesClasses.
func TestValidateVersionKinds(t *testing.T) {
	assert.ElementsMatch(t, []string{
		`revision: Invalid value: -1: must be greater than or equal to 0`,
		`data: Required value: data is mandatory`,
	}, validateJSON(t, "apps", "ControllerRevision", "cr", `{"revision":-1}`))
	assert.Equal(t, []string{`data: Required value: data must be a valid JSON object`},
		validateJSON(t, "apps", "ControllerRevision", "cr", `{"revision":1,"data":[1]}`))

	assert.ElementsMatch(t, []string{
		"metadata.name: Invalid value: \"wrong\": must be `spec.version+\".\"+spec.group`: \"v1.example.com\"",
		`spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000`,
		`spec.versionPriority: Invalid value: 1001: must be positive and less than 1000`,
		`spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle`,
	}, validateJSON(t, "apiregistration.k8s.io", "APIService", "wrong", `{"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":0,"versionPriority":1001,"caBundle":"AAAA"}}`))
	assert.ElementsMatch(t, []string{
		`spec.service.namespace: Required value`,
		`spec.service.name: Required value`,
		`spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present`,
	}, validateJSON(t, "apiregistration.k8s.io", "APIService", "v1.example.com", `{"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"caBundle":"AAAA","insecureSkipTLSVerify":true,"service":{"port":443}}}`))

	assert.Equal(t, []string{`spec.resource.resource: Required value: resource is required to be set`},
		validateJSON(t, "storagemigration.k8s.io", "StorageVersionMigration", "svm", `{"spec":{"resource":{"group":"apps"}}}`))

	assert.ElementsMatch(t, []string{
		`driverName: Required value`,
		`parameters: Required value: must contain at least one key/value pair`,
	}, validateJSON(t, "storage.k8s.io", "VolumeAttributesClass", "vac", `{"driverName":""}`))
	assert.Empty(t, validateJSON(t, "storage.k8s.io", "VolumeAttributesClass", "vac", `{"driverName":"Example.COM/d","parameters":{"a":"b"}}`))
}

// TestValidateTrustBundles checks a ClusterTrustBundle's PEM rules and
// its name's signer prefix.
func TestValidateTrustBundles(t *testing.T) {
	bundle := func(name, signer, pemText string) []string {
		body := `{"spec":{"signerName":` + strconv.Quote(signer) + `,"trustBundle":` + strconv.Quote(pemText) + `}}`
		return validateJSON(t, "certificates.k8s.io", "ClusterTrustBundle", name, body)
	}
	assert.Empty(t, bundle("example.com:signer:x", "example.com/signer", pemCA))
	assert.Equal(t, []string{`spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`}, bundle("x", "", "none"))
	assert.Equal(t, []string{`spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 1])`}, bundle("x", "", pemCA+pemCA))
	assert.Equal(t, []string{`spec.trustBundle: Invalid value: "<value omitted>": entry 1 has bad block type: FOO`},
		bundle("x", "", pemCA+"-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n"))
	assert.Equal(t, []string{`metadata.name: Invalid value: "x": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:`},
		bundle("x", "example.com/signer", pemCA))
	assert.Equal(t, []string{`metadata.name: Invalid value: "a:b": ClusterTrustBundle without signer name must not have ":" in its name`},
		bundle("a:b", "", pemCA))
}
