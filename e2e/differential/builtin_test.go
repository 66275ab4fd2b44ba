package differential

import (
	"encoding/json"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// builtinTestdata is where the fake server's built-in kind rules keep the
// objects they were checked with (valid ones under defaults/, invalid
// ones under validation/).
const builtinTestdata = "../../fakeapiserver/internal/builtin/testdata"

// builtinResources maps a kind to its resource and whether it is
// namespaced.
var builtinResources = map[string]struct {
	resource   string
	namespaced bool
}{
	"Pod": {"pods", true}, "Deployment": {"deployments", true}, "ReplicaSet": {"replicasets", true},
	"DaemonSet": {"daemonsets", true}, "StatefulSet": {"statefulsets", true}, "Job": {"jobs", true},
	"CronJob": {"cronjobs", true}, "ReplicationController": {"replicationcontrollers", true},
	"PodTemplate": {"podtemplates", true}, "Service": {"services", true}, "Secret": {"secrets", true},
	"ConfigMap": {"configmaps", true}, "PersistentVolume": {"persistentvolumes", false},
	"PersistentVolumeClaim": {"persistentvolumeclaims", true}, "Endpoints": {"endpoints", true},
	"LimitRange": {"limitranges", true}, "Node": {"nodes", false},
	"HorizontalPodAutoscaler": {"horizontalpodautoscalers", true}, "NetworkPolicy": {"networkpolicies", true},
	"RoleBinding": {"rolebindings", true}, "Role": {"roles", true}, "ClusterRole": {"clusterroles", false},
	"ClusterRoleBinding": {"clusterrolebindings", false}, "EndpointSlice": {"endpointslices", true},
	"StorageClass": {"storageclasses", false}, "CSIDriver": {"csidrivers", false},
	"PriorityClass": {"priorityclasses", false}, "FlowSchema": {"flowschemas", false},
	"PriorityLevelConfiguration":     {"prioritylevelconfigurations", false},
	"ValidatingWebhookConfiguration": {"validatingwebhookconfigurations", false},
	"MutatingWebhookConfiguration":   {"mutatingwebhookconfigurations", false},
	"ValidatingAdmissionPolicy":      {"validatingadmissionpolicies", false},
	"Namespace":                      {"namespaces", false}, "IngressClass": {"ingressclasses", false},
	"Ingress": {"ingresses", true}, "PodDisruptionBudget": {"poddisruptionbudgets", true},
	"Lease": {"leases", true}, "ServiceAccount": {"serviceaccounts", true},
	"ResourceQuota": {"resourcequotas", true}, "Event": {"events", true},
	"CertificateSigningRequest": {"certificatesigningrequests", false},
	"DeviceClass":               {"deviceclasses", false}, "ResourceClaim": {"resourceclaims", true},
	"ResourceClaimTemplate": {"resourceclaimtemplates", true}, "ResourceSlice": {"resourceslices", false},
	"DeviceTaintRule": {"devicetaintrules", false}, "ServiceCIDR": {"servicecidrs", false},
	"IPAddress": {"ipaddresses", false}, "RuntimeClass": {"runtimeclasses", false},
	"ControllerRevision": {"controllerrevisions", true}, "VolumeAttributesClass": {"volumeattributesclasses", false},
	"ClusterTrustBundle": {"clustertrustbundles", false}, "PodCertificateRequest": {"podcertificaterequests", true},
	"APIService": {"apiservices", false}, "StorageVersionMigration": {"storageversionmigrations", false},
	"CSINode": {"csinodes", false},
}

// builtinCreate turns a testdata object into a dry-run create in the
// case's namespace.
func builtinCreate(t *testing.T, file string) (Request, bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	r, ok := builtinResources[kind]
	if !ok {
		return Request{}, false
	}
	md, _ := obj["metadata"].(map[string]any)
	delete(md, "namespace")
	if inv, ok := obj["involvedObject"].(map[string]any); ok && inv["namespace"] == "default" {
		inv["namespace"] = "{ns}"
	}
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("encode %s: %v", file, err)
	}
	p := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		p = "/api/" + apiVersion
	}
	if r.namespaced {
		p += "/namespaces/{ns}"
	}
	return post(p+"/"+r.resource+"?dryRun=All", string(body)), true
}

// builtinCase starts a parallel case of the pair.
func builtinCase(t *testing.T, ns string) *Case {
	s := pair(t)
	t.Parallel()
	return s.NewCase(t, ns)
}

// builtinCreates returns the dry-run creates of the testdata objects in
// dir, by file name, in name order.
func builtinCreates(t *testing.T, dir string) iter.Seq2[string, Request] {
	files, err := filepath.Glob(filepath.Join(builtinTestdata, dir, "*.in.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata in %s: %v", dir, err)
	}
	return func(yield func(string, Request) bool) {
		for _, f := range files {
			req, ok := builtinCreate(t, f)
			if ok && !yield(strings.TrimSuffix(filepath.Base(f), ".in.json"), req) {
				return
			}
		}
	}
}

// TestBuiltinDefaults creates, as a dry run, every valid object the fake
// server's defaulting was checked with, on both servers: the whole
// defaulted object must match.
func TestBuiltinDefaults(t *testing.T) {
	c := builtinCase(t, "e2e-defaults")
	for name, req := range builtinCreates(t, "defaults") {
		var opts CompareOptions
		if strings.HasPrefix(name, "job") {
			// The generated selector and labels carry each server's uid.
			opts.IgnorePaths = []string{
				"metadata.labels.batch.kubernetes.io/controller-uid", "metadata.labels.controller-uid",
				"spec.selector.matchLabels.batch.kubernetes.io/controller-uid",
				"spec.template.metadata.labels.batch.kubernetes.io/controller-uid", "spec.template.metadata.labels.controller-uid",
			}
		}
		c.Compare("defaults: "+name, req, opts)
	}
}

// TestBuiltinValidation creates, as a dry run, every invalid object the
// fake server's validation was checked with: code, reason and causes must
// match. The causes are compared as a set, because the real server walks
// maps in random order; the message, which lists them, is compared when
// there is one cause.
func TestBuiltinValidation(t *testing.T) {
	c := builtinCase(t, "e2e-validation")
	for name, req := range builtinCreates(t, "validation") {
		step := "validation: " + name
		real, fake := c.Compare(step, req, CompareOptions{IgnorePaths: []string{"message", "details.causes"}})
		rc, fc := causeSet(real), causeSet(fake)
		if !slices.Equal(rc, fc) {
			t.Errorf("%s: causes differ:\n  real: %q\n  fake: %q", step, rc, fc)
		}
		if len(rc) <= 1 && str(real.JSON(), "message") != str(fake.JSON(), "message") {
			t.Errorf("%s: message differs:\n  real: %q\n  fake: %q", step, str(real.JSON(), "message"), str(fake.JSON(), "message"))
		}
	}
}

// causeSet returns a Status's causes as sorted "field | reason | message"
// strings.
func causeSet(r *Response) []string {
	details, _ := r.JSON()["details"].(map[string]any)
	causes, _ := details["causes"].([]any)
	out := make([]string, 0, len(causes))
	for _, c := range causes {
		m, _ := c.(map[string]any)
		f, _ := m["field"].(string)
		rs, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		out = append(out, f+" | "+rs+" | "+msg)
	}
	slices.Sort(out)
	return out
}

// recordedCases reads file, a JSON object of the fake server's recorded
// cases by name from builtinTestdata, and returns them with their names
// in order; a file without cases fails the test.
func recordedCases[T any](t *testing.T, file string) (map[string]T, []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(builtinTestdata, file))
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]T
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", file)
	}
	return cases, slices.Sorted(maps.Keys(cases))
}
