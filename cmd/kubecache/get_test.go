package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/rest"
)

// shopManifest is a small namespace with one of each kind the tables
// know, and a custom resource with printer columns.
const shopManifest = `
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {node-role.kubernetes.io/control-plane: ""}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop, labels: {app: web}}
spec: {nodeName: node-1, containers: [{name: nginx, image: "nginx:1.27"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop, labels: {app: web}}
spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop, labels: {app: web}}
data: {color: blue, size: L}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated, namespace: shop}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: shop}
spec: {size: 3, color: red}
`

// shopServer serves shopManifest; every object was created three hours
// ago, so every AGE reads "3h". The status of web-0 and node-1 is set
// through their status subresource, as a kubelet would: a create ignores
// status.
func shopServer(t *testing.T) (*fakeapiserver.Server, string) {
	t.Helper()
	s, kc := fakeServer(t, fakeapiserver.Options{Clock: fakeapiserver.NewFakeClock(time.Now().Add(-3 * time.Hour))})
	load(t, s, shopManifest)
	client, err := rest.NewClient(&rest.Config{Host: s.URL()})
	require.NoError(t, err)
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for _, st := range []struct{ namespace, resource, name, status string }{
		{"shop", "pods", "web-0", `{"status":{"phase":"Running","podIP":"10.0.0.7",
			"containerStatuses":[{"name":"nginx","ready":true,"restartCount":1,"state":{"running":{}}}]}}`},
		{"", "nodes", "node-1", `{"status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"kubeletVersion":"v1.37.2"}}}`},
	} {
		err := client.Patch(rest.MergePatchType).Namespace(st.namespace).Resource(st.resource).Name(st.name).
			SubResource("status").Body([]byte(st.status)).Do(ctx).Error()
		require.NoError(t, err, "status of %s", st.name)
	}
	return s, kc
}

func TestGetPrintsTablesLikeKubectl(t *testing.T) {
	_, kc := shopServer(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "pods", "-n", "shop"}, `
NAME    READY   STATUS    RESTARTS   AGE
web-0   1/1     Running   1          3h
web-1   0/1     Pending   0          3h
`},
		{[]string{"get", "po", "--namespace=shop", "-o", "wide"}, `
NAME    READY   STATUS    RESTARTS   AGE   IP         NODE     NOMINATED NODE   READINESS GATES
web-0   1/1     Running   1          3h    10.0.0.7   node-1   <none>           <none>
web-1   0/1     Pending   0          3h    <none>     <none>   <none>           <none>
`},
		{[]string{"get", "deploy", "-n", "shop"}, `
NAME   READY   UP-TO-DATE   AVAILABLE   AGE
web    0/2     0            0           3h
`},
		{[]string{"get", "deployments.apps", "-A", "-o", "wide"}, `
NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR
shop        web    0/2     0            0           3h    nginx        nginx:1.27   app=web
`},
		{[]string{"get", "cm", "-n", "shop"}, `
NAME        DATA   AGE
settings    2      3h
unrelated   0      3h
`},
		{[]string{"get", "svc"}, `
NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   3h
`},
		{[]string{"get", "ns"}, `
NAME              STATUS   AGE
default           Active   3h
kube-node-lease   Active   3h
kube-public       Active   3h
kube-system       Active   3h
shop              Active   3h
`},
		{[]string{"get", "nodes", "-A"}, `
NAME     STATUS   ROLES           AGE   VERSION
node-1   Ready    control-plane   3h    v1.37.2
`},
		{[]string{"get", "widgets", "-n", "shop"}, `
NAME   SIZE   AGE
w1     3      3h
`},
		{[]string{"get", "wd", "-n", "shop", "-o", "wide"}, `
NAME   SIZE   COLOR   AGE
w1     3      red     3h
`},
		{[]string{"get", "cm", "-n", "shop", "-l", "app=web"}, `
NAME       DATA   AGE
settings   2      3h
`},
		{[]string{"get", "pods", "-n", "shop", "--field-selector", "status.phase=Pending"}, `
NAME    READY   STATUS    RESTARTS   AGE
web-1   0/1     Pending   0          3h
`},
		{[]string{"get", "pods", "web-0", "-n", "shop", "-o", "name"}, "\npod/web-0\n"},
		{[]string{"get", "-n", "shop", "deploy/web", "-o", "name"}, "\ndeployment.apps/web\n"},
		{[]string{"get", "wd", "-o", "name", "-A"}, "\nwidget.example.com/w1\n"},
	} {
		r := runCommand(t, append(tc.args, "--kubeconfig", kc)...)
		require.NoError(t, r.err, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, strings.TrimPrefix(tc.want, "\n"), r.stdout, "kubecache %s", strings.Join(tc.args, " "))
		assert.Empty(t, r.stderr, "kubecache %s", strings.Join(tc.args, " "))
	}
}

func TestGetJSONAndYAML(t *testing.T) {
	_, kc := shopServer(t)

	r := runCommand(t, "get", "cm", "settings", "-n", "shop", "-o", "json", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	var cm struct {
		Kind, APIVersion string
		Metadata         struct{ Name, Namespace string }
		Data             map[string]string
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &cm), r.stdout)
	assert.Equal(t, "ConfigMap", cm.Kind, "a list item gets its kind back")
	assert.Equal(t, "v1", cm.APIVersion)
	assert.Equal(t, "settings", cm.Metadata.Name)
	assert.Equal(t, map[string]string{"color": "blue", "size": "L"}, cm.Data)
	assert.NotContains(t, r.stdout, "managedFields", "managedFields are hidden unless asked for")

	r = runCommand(t, "get", "cm", "-n", "shop", "-o", "json", "--show-managed-fields", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	var list struct {
		Kind  string
		Items []struct{ Metadata struct{ Name string } }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	assert.Equal(t, "List", list.Kind)
	require.Len(t, list.Items, 2)
	assert.Equal(t, "settings", list.Items[0].Metadata.Name)
	assert.Contains(t, r.stdout, "managedFields")

	r = runCommand(t, "get", "deploy", "web", "-n", "shop", "-o", "yaml", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"), r.stdout)
	assert.Contains(t, r.stdout, "  replicas: 2\n")
}

func TestGetEmptyAndMissing(t *testing.T) {
	_, kc := shopServer(t)
	r := runCommand(t, "get", "cm", "-n", "nowhere", "--kubeconfig", kc)
	require.NoError(t, r.err)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "No resources found in nowhere namespace.\n", r.stderr)

	r = runCommand(t, "get", "pv", "--kubeconfig", kc)
	require.NoError(t, r.err)
	assert.Equal(t, "No resources found.\n", r.stderr)

	r = runCommand(t, "get", "cm", "-n", "nowhere", "-o", "json", "--kubeconfig", kc)
	require.NoError(t, r.err)
	assert.JSONEq(t, `{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}`, r.stdout)

	r = runCommand(t, "get", "deploy", "nope", "-n", "shop", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, "Error from server (NotFound): deployments.apps \"nope\" not found\n", r.stderr)
	assert.Empty(t, r.stdout)
}

// TestGetExplainNarratesA410 forces a 410 on the first list and on a
// continue token, and checks the narration tells both, in order.
func TestGetExplainNarratesA410(t *testing.T) {
	s, kc := shopServer(t)
	load(t, s, `
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: default}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: default}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: default}}
`)
	s.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "list", Resource: "configmaps"}, Code: 410})
	s.ExpireNextContinue(fakeapiserver.Match{Resource: "configmaps"}, 1, false)
	r := runCommand(t, "get", "cm", "-A", "--explain", "--chunk-size", "2", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	ok, missing := inOrder(r.stderr,
		"LIST rv=0 limit=2",
		`listing rv=0 -> listing rv=""  — relist`,
		`LIST rv="" limit=2  — a consistent read`,
		"page 1: 2 items", ", more",
		"LIST page 2 continue limit=2",
		"continue token expired after page 1",
		`LIST rv=""  — a consistent read`,
		"page 1: 5 items",
		"REPLACE 5 objects",
	)
	assert.True(t, ok, "narration lacks %q in its place:\n%s", missing, r.stderr)
	assert.NotContains(t, r.stderr, "WATCH", "get stops at the first Replace")
	assert.Contains(t, r.stdout, "settings")
}

func TestGetProgressOnlyWhenAsked(t *testing.T) {
	_, kc := shopServer(t)
	r := runCommand(t, "get", "cm", "-A", "--progress", "always", "--kubeconfig", kc)
	require.NoError(t, r.err, r.stderr)
	assert.Contains(t, r.stderr, "\rlisting configmaps: 2 objects, 1 page")
	assert.True(t, strings.HasSuffix(r.stderr, "\r\033[K"), "the progress line is cleared: %q", r.stderr)

	r = runCommand(t, "get", "cm", "-A", "--kubeconfig", kc) // stderr is not a terminal
	require.NoError(t, r.err)
	assert.Empty(t, r.stderr)
}
