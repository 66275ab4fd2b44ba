package differential

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// updateCase is one entry of the fake server's
// testdata/validation_update.json: an object as the real server created
// it, the same object changed, and the real answer to a dry-run PUT of
// the change.
type updateCase struct {
	Created map[string]any `json:"created"`
	Update  map[string]any `json:"update"`
	Code    int            `json:"code"`
}

// dumpMessages are the cases whose real messages quote the server's
// internal Go types or generated uids: their causes are compared by
// field and reason, and by the first line of the message.
var dumpMessages = map[string]bool{"job-template": true, "pod-spec": true, "pvc-spec": true}

// updatePatches replace the recorded PUT of a case whose object carries
// what the real run generated (a Job's selector and labels hold its uid):
// the same change as a merge patch of each server's own object.
var updatePatches = map[string]string{
	"job-template": `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"y"}]}}}}`,
}

// TestBuiltinUpdates creates each object of the fake server's update
// cases on both servers and sends the changed object as a dry-run PUT:
// an allowed update must answer the same object, a refused one the same
// code, reason and causes (as a set; the message too when there is one
// cause and it quotes no dump).
func TestBuiltinUpdates(t *testing.T) {
	c := builtinCase(t, "e2e-updates")
	cases, names := recordedCases[updateCase](t, "validation_update.json")
	for _, name := range names {
		tc := cases[name]
		if tc.Created["kind"] == "Service" {
			// The recorded address and node ports may be held on the
			// real server by an earlier run's Service: let each server
			// allocate its own (a headless Service keeps its "None").
			spec, _ := tc.Created["spec"].(map[string]any)
			if spec["clusterIP"] != "None" {
				delete(spec, "clusterIP")
				delete(spec, "clusterIPs")
			}
			for _, obj := range []map[string]any{tc.Created, tc.Update} {
				spec, _ := obj["spec"].(map[string]any)
				ports, _ := spec["ports"].([]any)
				for _, p := range ports {
					if p, ok := p.(map[string]any); ok {
						delete(p, "nodePort")
					}
				}
			}
		}
		create, path, objName := updateRequest(t, tc.Created, c.NS)
		update, _, _ := updateRequest(t, tc.Update, c.NS)
		c.Setup(post(path, create))
		if !strings.Contains(path, "{ns}") {
			// A cluster-scoped object outlives the namespace.
			t.Cleanup(func() { c.Each(func(*Side) Request { return del(path + "/" + objName) }) })
		}
		step := "update: " + name
		req := put(path+"/"+objName+"?dryRun=All", update)
		if p, ok := updatePatches[name]; ok {
			req = patch(path+"/"+objName+"?dryRun=All", "application/merge-patch+json", p)
		}
		if tc.Code/100 == 2 {
			var opts []CompareOptions
			if tc.Created["kind"] == "Service" {
				// Each server answers with the address it allocated.
				opts = append(opts, CompareOptions{IgnorePaths: []string{"spec.clusterIP", "spec.clusterIPs", "spec.ports[].nodePort"}})
			}
			c.Compare(step, req, opts...)
			continue
		}
		real, fake := c.Compare(step, req, CompareOptions{IgnorePaths: []string{"message", "details.causes"}})
		rc, fc := causeSet(real), causeSet(fake)
		if dumpMessages[name] {
			rc, fc = firstLines(rc), firstLines(fc)
		}
		if !slices.Equal(rc, fc) {
			t.Errorf("%s: causes differ:\n  real: %q\n  fake: %q", step, rc, fc)
		}
		if len(rc) == 1 && !dumpMessages[name] && str(real.JSON(), "message") != str(fake.JSON(), "message") {
			t.Errorf("%s: message differs:\n  real: %q\n  fake: %q", step, str(real.JSON(), "message"), str(fake.JSON(), "message"))
		}
	}
}

// firstLines cuts each "field | reason | message" cause after the first
// line of its message and before a quoted value, which for a dump holds
// each server's own uids and types.
func firstLines(causes []string) []string {
	out := make([]string, len(causes))
	for i, c := range causes {
		c, _, _ = strings.Cut(c, "\n")
		if j := strings.Index(c, "Invalid value: "); j >= 0 {
			c = c[:j+len("Invalid value: ")]
		}
		out[i] = c
	}
	slices.Sort(out)
	return out
}

// updateRequest turns a recorded object into a body for the case's
// namespace ns (without the real run's namespace, resourceVersion, uid
// and timestamps; a cluster-scoped object's name gets ns appended, so
// runs on one server do not collide) and returns it with the path of
// its collection and its name.
func updateRequest(t *testing.T, obj map[string]any, ns string) (body, collection, name string) {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	for _, k := range []string{"namespace", "resourceVersion", "uid", "creationTimestamp", "managedFields", "generation"} {
		delete(md, k)
	}
	kind, _ := obj["kind"].(string)
	if kind == "Job" {
		// The generated selector and labels name the recorded run's uid.
		spec, _ := obj["spec"].(map[string]any)
		delete(spec, "selector")
		tmd, _ := spec["template"].(map[string]any)["metadata"].(map[string]any)
		for _, m := range []map[string]any{md, tmd} {
			labels, _ := m["labels"].(map[string]any)
			for k := range labels {
				if strings.Contains(k, "controller-uid") || strings.HasSuffix(k, "job-name") {
					delete(labels, k)
				}
			}
		}
	}
	apiVersion, _ := obj["apiVersion"].(string)
	r, ok := builtinResources[kind]
	if !ok {
		t.Fatalf("no resource for kind %s", kind)
	}
	p := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		p = "/api/" + apiVersion
	}
	if r.namespaced {
		p += "/namespaces/{ns}"
	} else {
		md["name"] = md["name"].(string) + "-" + ns
		if kind == "APIService" {
			// An APIService is named version.group.
			spec, _ := obj["spec"].(map[string]any)
			spec["group"] = spec["group"].(string) + "-" + ns
		}
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), p + "/" + r.resource, md["name"].(string)
}
