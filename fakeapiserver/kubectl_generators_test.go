package fakeapiserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generatorCommands are kubectl's create generators, run, expose and
// autoscale: all
// send protobuf bodies (kubectl's typed clients have no content-type
// setting), and each prints what it prints against a real kube-apiserver
// v1.37.2.
var generatorCommands = []struct {
	args []string
	want string
}{
	{[]string{"create", "namespace", "demo"}, "namespace/demo created\n"},
	{[]string{"create", "configmap", "cm", "--from-literal=a=b", "--from-literal=c=d"}, "configmap/cm created\n"},
	{[]string{"create", "secret", "generic", "gen", "--from-literal=password=s3cret"}, "secret/gen created\n"},
	{[]string{"create", "secret", "tls", "tls", "--cert=CERT", "--key=KEY"}, "secret/tls created\n"},
	{[]string{"create", "secret", "docker-registry", "reg", "--docker-server=registry.example", "--docker-username=u", "--docker-password=p"}, "secret/reg created\n"},
	{[]string{"create", "deployment", "web", "--image=nginx", "--replicas=2", "--port=80"}, "deployment.apps/web created\n"},
	{[]string{"create", "job", "once", "--image=busybox", "--", "echo", "hi"}, "job.batch/once created\n"},
	{[]string{"create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *"}, "cronjob.batch/nightly created\n"},
	{[]string{"create", "service", "clusterip", "cip", "--tcp=80:8080"}, "service/cip created\n"},
	{[]string{"create", "service", "nodeport", "np", "--tcp=80:8080"}, "service/np created\n"},
	{[]string{"create", "service", "loadbalancer", "lb", "--tcp=443:8443"}, "service/lb created\n"},
	{[]string{"create", "service", "externalname", "ext", "--external-name=example.com"}, "service/ext created\n"},
	{[]string{"create", "serviceaccount", "robot"}, "serviceaccount/robot created\n"},
	{[]string{"create", "role", "reader", "--verb=get,list", "--resource=pods,configmaps"}, "role.rbac.authorization.k8s.io/reader created\n"},
	{[]string{"create", "rolebinding", "reader", "--role=reader", "--serviceaccount=default:robot"}, "rolebinding.rbac.authorization.k8s.io/reader created\n"},
	{[]string{"create", "clusterrole", "viewer", "--verb=get", "--resource=nodes"}, "clusterrole.rbac.authorization.k8s.io/viewer created\n"},
	{[]string{"create", "clusterrolebinding", "viewer", "--clusterrole=viewer", "--user=alice"}, "clusterrolebinding.rbac.authorization.k8s.io/viewer created\n"},
	{[]string{"create", "quota", "q", "--hard=cpu=1,memory=1Gi,pods=10"}, "resourcequota/q created\n"},
	{[]string{"create", "priorityclass", "high", "--value=1000", "--description=important"}, "priorityclass.scheduling.k8s.io/high created\n"},
	{[]string{"create", "poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=50%"}, "poddisruptionbudget.policy/pdb created\n"},
	{[]string{"create", "ingress", "web", "--rule=web.example.com/*=web:80"}, "ingress.networking.k8s.io/web created\n"},
	{[]string{"run", "nginx", "--image=nginx", "--labels=app=nginx"}, "pod/nginx created\n"},
	{[]string{"expose", "deployment", "web", "--port=80", "--target-port=8080"}, "service/web exposed\n"},
	{[]string{"autoscale", "deployment", "web", "--min=1", "--max=3", "--cpu-percent=80"}, "horizontalpodautoscaler.autoscaling/web autoscaled\n"},
	{[]string{"get", "configmap", "cm", "-o", "jsonpath={.data}"}, `{"a":"b","c":"d"}`},
	{[]string{"get", "quota", "q", "-o", "jsonpath={.spec.hard}"}, `{"cpu":"1","memory":"1Gi","pods":"10"}`},
	{[]string{"get", "pdb", "pdb", "-o", "jsonpath={.spec.minAvailable}"}, `50%`},
	{[]string{"delete", "configmap", "cm"}, "configmap \"cm\" deleted\n"},
	{[]string{"delete", "deployment", "web", "--cascade=foreground"}, "deployment.apps \"web\" deleted\n"},
	{[]string{"delete", "namespace", "demo", "--wait=false"}, "namespace \"demo\" deleted\n"},
}

func TestKubectlGenerators(t *testing.T) {
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	certPEM, keyPEM := selfSignedPEM(t)
	files := strings.NewReplacer("CERT", k.file("tls.crt", certPEM), "KEY", k.file("tls.key", keyPEM))
	for _, c := range generatorCommands {
		args := make([]string, len(c.args))
		for i, a := range c.args {
			args[i] = files.Replace(a)
		}
		out, errOut, err := k.try(args...)
		if assert.NoError(t, err, "kubectl %q: %s", c.args, errOut) {
			assert.Equal(t, c.want, out, "kubectl %q", c.args)
		}
	}
}

// selfSignedPEM makes a certificate and key for kubectl create secret tls.
func selfSignedPEM(t *testing.T) (string, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "web.example.com"},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1700000000, 0).Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}
