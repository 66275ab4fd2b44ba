package differential

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// statusCase is one entry of the fake server's
// testdata/validation_status.json: an object as the real server stored
// it, the same object with a new status, and the real answer to a
// dry-run write of that status.
type statusCase struct {
	Created map[string]any `json:"created"`
	Update  map[string]any `json:"update"`
	Code    int            `json:"code"`
}

// jsonPatchStatus is a JSON patch setting .status to status.
func jsonPatchStatus(t *testing.T, status any) string {
	t.Helper()
	data, err := json.Marshal([]map[string]any{{"op": "add", "path": "/status", "value": status}})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestBuiltinStatusWrites creates each object of the fake server's status
// cases on both servers, gives it the recorded status (and deletes it
// when the recorded one was being deleted), then writes the new status to
// /status as a dry run: an allowed write must answer the same object, a
// refused one the same code, reason and causes (as a set; the message too
// when there is one cause).
func TestBuiltinStatusWrites(t *testing.T) {
	c := builtinCase(t, "e2e-statuswrites")
	cases, names := recordedCases[statusCase](t, "validation_status.json")
	for _, name := range names {
		tc := cases[name]
		kind, _ := tc.Created["kind"].(string)
		if kind == "Service" {
			// Each server allocates its own address and node ports.
			spec, _ := tc.Created["spec"].(map[string]any)
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
			ports, _ := spec["ports"].([]any)
			for _, p := range ports {
				delete(p.(map[string]any), "nodePort")
			}
		}
		md, _ := tc.Created["metadata"].(map[string]any)
		deleting := md["deletionTimestamp"] != nil
		delete(md, "deletionTimestamp")
		delete(md, "deletionGracePeriodSeconds")
		status := tc.Created["status"]
		create, path, objName := updateRequest(t, tc.Created, c.NS)
		obj := path + "/" + objName
		c.Setup(post(path, create))
		if !strings.Contains(path, "{ns}") {
			// A cluster-scoped object outlives the namespace.
			t.Cleanup(func() {
				c.Each(func(*Side) Request {
					return patch(obj, "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
				})
				c.Each(func(*Side) Request { return del(obj) })
			})
		}
		if status != nil && kind != "Namespace" {
			c.Setup(patch(obj+"/status", "application/json-patch+json", jsonPatchStatus(t, status)))
		}
		if deleting {
			c.Setup(del(obj))
		}
		step := "status: " + name
		req := patch(obj+"/status?dryRun=All", "application/json-patch+json", jsonPatchStatus(t, tc.Update["status"]))
		if tc.Code/100 == 2 {
			var opts CompareOptions
			if deleting {
				// The fake server's namespace controller has emptied the
				// namespace and taken its kubernetes finalizer; a real
				// server without a controller manager has not.
				opts.IgnorePaths = []string{"spec.finalizers"}
			}
			switch kind {
			case "APIService":
				// The real server's availability controller has set the
				// Available condition before the write, so the write's
				// managedFields hold only what it changed.
				opts.IgnorePaths = []string{"metadata.managedFields"}
			case "StorageVersionMigration":
				// The create's entry differs (the fake server records the
				// empty spec.resource.group as set): not a status matter.
				opts.IgnorePaths = []string{"metadata.managedFields[0]"}
			case "Service":
				// Each server allocates its own addresses and ports.
				opts.IgnorePaths = []string{"spec.clusterIP", "spec.clusterIPs", "spec.ports"}
			case "Job":
				// The generated selector and labels carry each server's uid.
				opts.IgnorePaths = []string{
					"metadata.labels.batch.kubernetes.io/controller-uid", "metadata.labels.controller-uid",
					"spec.selector.matchLabels.batch.kubernetes.io/controller-uid",
					"spec.template.metadata.labels.batch.kubernetes.io/controller-uid", "spec.template.metadata.labels.controller-uid",
				}
			}
			c.Compare(step, req, opts)
			continue
		}
		real, fake := c.Compare(step, req, CompareOptions{IgnorePaths: []string{"message", "details.causes"}})
		rc, fc := causeSet(real), causeSet(fake)
		if !slices.Equal(rc, fc) {
			t.Errorf("%s: causes differ:\n  real: %q\n  fake: %q", step, rc, fc)
		}
		if len(rc) == 1 && str(real.JSON(), "message") != str(fake.JSON(), "message") {
			t.Errorf("%s: message differs:\n  real: %q\n  fake: %q", step, str(real.JSON(), "message"), str(fake.JSON(), "message"))
		}
	}
}
