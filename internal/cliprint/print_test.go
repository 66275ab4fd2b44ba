package cliprint

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/meta"
)

var now = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// created is a creationTimestamp 90 seconds before now.
const created = "2030-01-02T03:02:35Z"

func object(t testing.TB, yamlDoc string) *meta.Unstructured {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(yamlDoc))
	require.NoError(t, err)
	var u meta.Unstructured
	require.NoError(t, json.Unmarshal(j, &u))
	return &u
}

func render(t *testing.T, res Resource, opts Options, objs ...*meta.Unstructured) string {
	t.Helper()
	opts.Now = now
	var b bytes.Buffer
	require.NoError(t, Print(&b, res, objs, opts))
	return b.String()
}

var (
	pods        = Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	deployments = Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	services    = Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	nodes       = Resource{Version: "v1", Resource: "nodes", Kind: "Node"}
	namespaces  = Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	configmaps  = Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
)

func TestPodTable(t *testing.T) {
	running := object(t, `
metadata: {name: web-0, namespace: shop, creationTimestamp: "`+created+`"}
spec:
  nodeName: node-1
  containers: [{name: a}, {name: b}]
  readinessGates: [{conditionType: "example.com/lb"}]
status:
  phase: Running
  podIP: 10.0.0.7
  conditions: [{type: Ready, status: "True"}, {type: example.com/lb, status: "True"}]
  containerStatuses:
  - {name: a, ready: true, restartCount: 2, state: {running: {}}}
  - {name: b, ready: false, restartCount: 1, state: {waiting: {reason: CrashLoopBackOff}}}
`)
	pending := object(t, `
metadata: {name: web-1, namespace: shop, creationTimestamp: "`+created+`"}
spec: {containers: [{name: a}]}
status: {phase: Pending}
`)
	terminating := object(t, `
metadata: {name: web-2, namespace: shop, creationTimestamp: "`+created+`", deletionTimestamp: "`+created+`"}
spec: {containers: [{name: a}]}
status: {phase: Running, containerStatuses: [{name: a, ready: true, state: {running: {}}}]}
`)
	initializing := object(t, `
metadata: {name: web-3, namespace: shop}
spec: {initContainers: [{name: i1}, {name: i2}], containers: [{name: a}]}
status:
  phase: Pending
  initContainerStatuses:
  - {name: i1, state: {terminated: {exitCode: 0}}}
  - {name: i2, state: {waiting: {reason: PodInitializing}}}
`)
	failedInit := object(t, `
metadata: {name: web-4, namespace: shop}
spec: {initContainers: [{name: i1}], containers: [{name: a}]}
status: {phase: Pending, initContainerStatuses: [{name: i1, restartCount: 3, state: {terminated: {exitCode: 2}}}]}
`)
	completed := object(t, `
metadata: {name: job-1, namespace: shop}
spec: {containers: [{name: a}]}
status: {phase: Succeeded, containerStatuses: [{name: a, state: {terminated: {exitCode: 0, reason: Completed}}}]}
`)
	got := render(t, pods, Options{}, running, pending, terminating, initializing, failedInit, completed)
	assert.Equal(t, `NAME    READY   STATUS             RESTARTS   AGE
web-0   1/2     CrashLoopBackOff   3          90s
web-1   0/1     Pending            0          90s
web-2   1/1     Terminating        0          90s
web-3   0/1     Init:1/2           0          <unknown>
web-4   0/1     Init:ExitCode:2    3          <unknown>
job-1   0/1     Completed          0          <unknown>
`, got)

	got = render(t, pods, Options{Format: Wide, WithNamespace: true}, running, pending)
	assert.Equal(t, `NAMESPACE   NAME    READY   STATUS             RESTARTS   AGE   IP         NODE     NOMINATED NODE   READINESS GATES
shop        web-0   1/2     CrashLoopBackOff   3          90s   10.0.0.7   node-1   <none>           1/1
shop        web-1   0/1     Pending            0          90s   <none>     <none>   <none>           <none>
`, got)
}

func TestDeploymentTable(t *testing.T) {
	d := object(t, `
metadata: {name: web, namespace: shop, creationTimestamp: "`+created+`"}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web, tier: front}
    matchExpressions: [{key: env, operator: In, values: [prod, qa]}, {key: canary, operator: DoesNotExist}]
  template: {spec: {containers: [{name: nginx, image: "nginx:1.27"}, {name: log, image: fluentbit}]}}
status: {readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2}
`)
	fresh := object(t, `metadata: {name: new, namespace: shop, creationTimestamp: "`+created+`"}`)
	got := render(t, deployments, Options{Format: Wide}, d, fresh)
	assert.Equal(t, `NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES                 SELECTOR
web    2/3     3            2           90s   nginx,log    nginx:1.27,fluentbit   app=web,tier=front,env in (prod,qa),!canary
new    0/1     0            0           90s   <none>       <none>                 <none>
`, got)
}

func TestServiceTable(t *testing.T) {
	svcs := []*meta.Unstructured{
		object(t, `
metadata: {name: kubernetes, namespace: default, creationTimestamp: "`+created+`"}
spec: {clusterIP: 10.96.0.1, ports: [{port: 443, protocol: TCP}]}`),
		object(t, `
metadata: {name: lb, namespace: default, creationTimestamp: "`+created+`"}
spec: {type: LoadBalancer, clusterIP: 10.96.0.9, selector: {app: web}, ports: [{port: 80, nodePort: 30080}, {port: 53, protocol: UDP}]}`),
		object(t, `
metadata: {name: lb-ready, namespace: default, creationTimestamp: "`+created+`"}
spec: {type: LoadBalancer, clusterIP: 10.96.0.10, externalIPs: [1.2.3.4]}
status: {loadBalancer: {ingress: [{ip: 5.6.7.8}, {hostname: lb.example.com}]}}`),
		object(t, `
metadata: {name: ext, namespace: default, creationTimestamp: "`+created+`"}
spec: {type: ExternalName, externalName: db.example.com}`),
	}
	got := render(t, services, Options{Format: Wide}, svcs...)
	assert.Equal(t, `NAME         TYPE           CLUSTER-IP   EXTERNAL-IP                      PORT(S)               AGE   SELECTOR
kubernetes   ClusterIP      10.96.0.1    <none>                           443/TCP               90s   <none>
lb           LoadBalancer   10.96.0.9    <pending>                        80:30080/TCP,53/UDP   90s   app=web
lb-ready     LoadBalancer   10.96.0.10   5.6.7.8,lb.example.com,1.2.3.4   <none>                90s   <none>
ext          ExternalName   <none>       db.example.com                   <none>                90s   <none>
`, got)
}

func TestNodeAndNamespaceTables(t *testing.T) {
	n := object(t, `
metadata:
  name: node-1
  creationTimestamp: "`+created+`"
  labels: {node-role.kubernetes.io/control-plane: "", node-role.kubernetes.io/: "", kubernetes.io/role: master}
spec: {unschedulable: true}
status:
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 172.18.0.2}, {type: Hostname, address: node-1}]
  nodeInfo: {kubeletVersion: v1.37.2, osImage: Debian, kernelVersion: "6.8", containerRuntimeVersion: "containerd://2.0"}
`)
	bare := object(t, `metadata: {name: node-2}`)
	got := render(t, nodes, Options{Format: Wide, WithNamespace: true}, n, bare)
	assert.Equal(t, `NAME     STATUS                     ROLES                  AGE         VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE    KERNEL-VERSION   CONTAINER-RUNTIME
node-1   Ready,SchedulingDisabled   control-plane,master   90s         v1.37.2   172.18.0.2    <none>        Debian      6.8              containerd://2.0
node-2   Unknown                    <none>                 <unknown>             <none>        <none>        <unknown>   <unknown>        <unknown>
`, got, "a cluster-scoped resource has no NAMESPACE column even with -A")

	ns := object(t, `{metadata: {name: default, creationTimestamp: "`+created+`"}, status: {phase: Active}}`)
	assert.Equal(t, "NAME      STATUS   AGE\ndefault   Active   90s\n", render(t, namespaces, Options{}, ns))
}

func TestConfigMapAndDefaultTables(t *testing.T) {
	cm := object(t, `{metadata: {name: settings, namespace: default, creationTimestamp: "`+created+`"}, data: {a: "1", b: "2"}, binaryData: {c: AA==}}`)
	assert.Equal(t, "NAME       DATA   AGE\nsettings   3      90s\n", render(t, configmaps, Options{}, cm))

	leases := Resource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}
	l := object(t, `{metadata: {name: "tab\tname", namespace: kube-system, creationTimestamp: "`+created+`"}}`)
	assert.Equal(t, "NAMESPACE     NAME       AGE\nkube-system   tab name   90s\n", render(t, leases, Options{WithNamespace: true}, l),
		"a tab in a cell must not break the table")
}

func TestCustomResourceColumns(t *testing.T) {
	crd := object(t, `
metadata: {name: widgets.example.com}
spec:
  versions:
  - name: v1
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    - {name: Colors, type: string, jsonPath: '.spec.colors[*]', priority: 1}
  - name: v2
    additionalPrinterColumns:
    - {name: Broken, type: string, jsonPath: .spec..x}
    - {name: Fine, type: boolean, jsonPath: .spec.on}
`)
	cols, err := ColumnsFromCRD(crd, "v1")
	require.NoError(t, err)
	require.Len(t, cols, 4)
	widgets := Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true, Columns: cols}
	w := object(t, `
metadata: {name: w1, namespace: default, creationTimestamp: "`+created+`"}
spec: {size: 3, colors: [red, blue]}
status: {conditions: [{type: Ready, status: "True"}]}`)
	empty := object(t, `metadata: {name: w2, namespace: default}`)
	assert.Equal(t, "NAME   SIZE     READY    AGE\nw1     3        True     90s\nw2     <none>   <none>   <none>\n",
		render(t, widgets, Options{}, w, empty))
	assert.Equal(t, "NAME   SIZE   READY   AGE   COLORS\nw1     3      True    90s   red,blue\n",
		render(t, widgets, Options{Format: Wide}, w))

	cols, err = ColumnsFromCRD(crd, "v2")
	var pe *PathError
	assert.True(t, errors.As(err, &pe), "a bad column is reported: %v", err)
	assert.Contains(t, err.Error(), `column "Broken"`)
	require.Len(t, cols, 1, "the good columns are kept")
	assert.Equal(t, "Fine", cols[0].Name)

	cols, err = ColumnsFromCRD(crd, "v3")
	assert.NoError(t, err)
	assert.Empty(t, cols)
}

func TestNameJSONAndYAML(t *testing.T) {
	a := object(t, `{metadata: {name: a, namespace: default, resourceVersion: "5", managedFields: [{manager: kubectl}]}, data: {k: v}}`)
	b := object(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: default}}`)
	assert.Equal(t, "configmap/a\nconfigmap/b\n", render(t, configmaps, Options{Format: Name}, a, b))
	assert.Equal(t, "deployment.apps/web\n", NameOf(deployments, "web")+"\n")

	got := render(t, configmaps, Options{Format: JSON, Single: true}, a)
	assert.Equal(t, `{
    "kind": "ConfigMap",
    "apiVersion": "v1",
    "metadata": {
        "name": "a",
        "namespace": "default",
        "resourceVersion": "5"
    },
    "data": {
        "k": "v"
    }
}
`, got)
	assert.Empty(t, a.Kind, "Print must not modify the object it prints")
	assert.NotNil(t, a.ManagedFields, "Print must not modify the object it prints")
	got = render(t, configmaps, Options{Format: JSON, Single: true, ShowManagedFields: true}, a)
	assert.Contains(t, got, `"manager": "kubectl"`)

	got = render(t, configmaps, Options{Format: JSON}, a, b)
	var list struct {
		APIVersion, Kind string
		Items            []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(got), &list))
	assert.Equal(t, "List", list.Kind)
	assert.Len(t, list.Items, 2)

	got = render(t, configmaps, Options{Format: YAML, Single: true}, a)
	assert.Equal(t, "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n  resourceVersion: \"5\"\n", got)

	got = render(t, configmaps, Options{Format: YAML})
	assert.True(t, strings.HasPrefix(got, "apiVersion: v1\nitems: []\nkind: List\n"), got)
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"", "wide", "json", "yaml", "name"} {
		f, err := ParseFormat(s)
		require.NoError(t, err)
		assert.Equal(t, s, f.String())
	}
	_, err := ParseFormat("jsonpath={.x}")
	assert.ErrorIs(t, err, ErrUnknownFormat)
	assert.Equal(t, `unable to match a printer suitable for the output format "jsonpath={.x}", allowed formats are: json,name,wide,yaml`, err.Error())
}

// FuzzTableRow prints arbitrary objects (as a server may send them) with
// every built-in kind's columns: no panic, and as many cells as headers.
func FuzzTableRow(f *testing.F) {
	f.Add(`{"metadata":{"name":"a"},"spec":{"containers":[{"name":"x"}]},"status":{"containerStatuses":[{"state":{"waiting":{"reason":"X"}}}]}}`)
	f.Add(`{"metadata":{"name":"a"},"spec":{"ports":[{"port":"x","nodePort":1e99}],"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[1]}}}`)
	f.Add(`{"metadata":{"name":"a","labels":{"node-role.kubernetes.io/x":""}},"status":{"conditions":"no"}}`)
	f.Add(`{"spec":{"selector":{"matchLabels":{"a":1},"matchExpressions":[{"operator":"In","values":[null]}]}}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var u meta.Unstructured
		if err := json.Unmarshal([]byte(doc), &u); err != nil {
			return
		}
		for key := range builtinColumns {
			group, kind, _ := strings.Cut(key, "/")
			res := Resource{Group: group, Kind: kind, Namespaced: true}
			for _, format := range []Format{Table, Wide} {
				tl := NewTable(res, Options{Format: format, WithNamespace: true, Now: now})
				if h, r := tl.Headers(), tl.Row(&u); len(h) != len(r) {
					t.Fatalf("%s %v: %d headers, %d cells", key, format, len(h), len(r))
				}
			}
		}
	})
}
