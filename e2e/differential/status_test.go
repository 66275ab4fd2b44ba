package differential

import (
	"strings"
	"testing"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// TestStatusReasons produces every reason of the table "Reasons and codes"
// in docs/api-semantics.md that a client can cause on purpose, and
// compares the Status bodies. The rest cannot be produced on demand on a
// real server; each says why.
func TestStatusReasons(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-status")
	c.Setup(createCM("a", "k", "v"))
	c.RV("rva", get(cms+"/a"))
	c.Setup(patch(cms+"/a", "application/merge-patch+json", `{"data":{"k":"v2"}}`))

	c.Compare("BadRequest 400: label selector", get(cms+"?labelSelector=a%20in"))
	c.Compare("BadRequest 400: namespace mismatch on create",
		post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"other"}}`))
	c.Compare("BadRequest 400: name mismatch on update", put(cms+"/a", cm("b", "")))
	c.Compare("BadRequest 400: wrong kind",
		post(cms, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`))
	c.Compare("BadRequest 400: malformed body", post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":`))
	c.Compare("Unauthorized 401: wrong token",
		Request{Path: cms, Header: map[string]string{"Authorization": "Bearer wrong-token"}})
	c.Compare("Forbidden 403: a user without permissions",
		Request{Path: cms, Header: map[string]string{"Impersonate-User": target.ForbiddenUser}})
	c.Compare("Forbidden 403: get one object",
		Request{Path: cms + "/a", Header: map[string]string{"Impersonate-User": target.ForbiddenUser}})
	c.Compare("NotFound 404: object", get(cms+"/missing"))
	c.Compare("NotFound 404: namespace of a create", post("/api/v1/namespaces/missing-ns-e2e/configmaps", cm("x", "")))
	c.Compare("NotFound 404: unknown path", get("/api/v1/namespaces/{ns}/bogusresources"))
	c.Compare("NotFound 404: unknown group", get("/apis/bogus.example.com/v1/things"))
	c.Compare("MethodNotAllowed 405: PUT on a collection", put(cms, cm("x", "")))
	c.Compare("MethodNotAllowed 405: POST to an object", post(cms+"/a", cm("a", "")))
	c.Compare("NotAcceptable 406", Request{Path: cms + "/a", Header: map[string]string{"Accept": "text/html"}})
	c.Compare("AlreadyExists 409", createCM("a"))
	c.Compare("Conflict 409: stale resourceVersion on update",
		put(cms+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"{rva}"}}`))
	c.Compare("Conflict 409: delete precondition",
		Request{Method: "DELETE", Path: cms + "/a", Body: `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"resourceVersion":"{rva}"}}`})
	c.Compare("RequestEntityTooLarge 413", createCM("big", "k", strings.Repeat("x", 3<<20+1024)))
	c.Compare("UnsupportedMediaType 415: PATCH as application/json",
		patch(cms+"/a", "application/json", `{"data":{"k":"x"}}`))
	c.Compare("UnsupportedMediaType 415: POST as text/plain",
		Request{Method: "POST", Path: cms, Body: cm("x", ""), Header: map[string]string{"Content-Type": "text/plain"}})
	c.Compare("Invalid 422: bad name", createCM("Bad_Name"))
	c.Compare("Invalid 422: bad label value", post(cms, cm("x", "k=-bad-")))
	c.Compare("Invalid 422: resourceVersion on create",
		post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","resourceVersion":"5"}}`))
	c.Compare("Invalid 422: failing JSON patch test",
		patch(cms+"/a", "application/json-patch+json", `[{"op":"test","path":"/data/k","value":"nope"}]`))
	c.Compare("Timeout 504: future resourceVersion", get(cms+"?resourceVersion=999999999"))
	// Not produced on demand by a real server, so not compared here:
	//   Gone 410 — deprecated; servers answer Expired (TestCompaction).
	//   Expired 410 — needs compaction: TestCompaction.
	//   TooManyRequests 429 — priority and fairness under real overload.
	//   InternalError 500, ServerTimeout 500, ServiceUnavailable 503 —
	//   server faults; the fake server injects them (FailNext).
}

// TestCRUD covers the create, update, patch and delete rules.
func TestCRUD(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-crud")
	c.Compare("create", createCM("a", "k", "v"))
	c.Compare("create with generateName (name differs by design)",
		post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"}}`),
		CompareOptions{IgnorePaths: []string{"metadata.name", "metadata.managedFields"}})
	c.Compare("create ignores uid and creationTimestamp",
		post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","uid":"x","creationTimestamp":"2020-01-01T00:00:00Z"}}`))
	c.Compare("create with an unknown field (Warn)", post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w"},"bogus":1}`))
	c.Compare("create with an unknown field (Strict)",
		post(cms+"?fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w2"},"bogus":1}`))
	c.Compare("create with dryRun", post(cms+"?dryRun=All", cm("dry", "")))
	c.Compare("dryRun object was not stored", get(cms+"/dry"))
	c.Compare("get", get(cms+"/a"))
	c.Compare("create with empty maps", post(cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"empty","labels":{},"annotations":{}},"data":{}}`))
	c.Compare("update without resourceVersion", put(cms+"/a", cm("a", "", "k", "v2")))
	c.RV("rv", get(cms+"/a"))
	c.Compare("update with the current resourceVersion",
		put(cms+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"{rv}"},"data":{"k":"v3"}}`))
	c.Compare("update of a missing object", put(cms+"/missing", cm("missing", "")))
	c.Compare("no-op update", put(cms+"/a", cm("a", "", "k", "v3")))
	c.Compare("merge patch", patch(cms+"/a", "application/merge-patch+json", `{"metadata":{"labels":{"l":"1"}},"data":{"n":"1"}}`))
	c.Compare("strategic merge patch", patch(cms+"/a", "application/strategic-merge-patch+json", `{"data":{"s":"1"}}`))
	c.Compare("JSON patch", patch(cms+"/a", "application/json-patch+json", `[{"op":"add","path":"/data/j","value":"1"},{"op":"remove","path":"/data/n"}]`))
	c.Compare("JSON patch on a missing path", patch(cms+"/a", "application/json-patch+json", `[{"op":"remove","path":"/data/nothere"}]`))
	c.Compare("patch of a missing object", patch(cms+"/missing", "application/merge-patch+json", `{"data":{"a":"1"}}`))
	c.Compare("patch with a stale resourceVersion",
		patch(cms+"/a", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"},"data":{"x":"1"}}`))
	c.Compare("delete", del(cms+"/b"))
	c.Compare("delete of a missing object", del(cms+"/b"))
	c.Compare("delete with Background propagation",
		Request{Method: "DELETE", Path: cms + "/w", Body: `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`})
	c.Setup(post(cms, cm("fin", "")), patch(cms+"/fin", "application/merge-patch+json", `{"metadata":{"finalizers":["e2e.kubecache.io/hold"]}}`))
	c.Compare("delete of an object with a finalizer", del(cms+"/fin"))
	c.Compare("second delete changes nothing", del(cms+"/fin"))
	c.Compare("adding a finalizer while deleting",
		patch(cms+"/fin", "application/merge-patch+json", `{"metadata":{"finalizers":["e2e.kubecache.io/hold","e2e.kubecache.io/more"]}}`))
	c.Compare("removing the last finalizer deletes", patch(cms+"/fin", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`))
	c.Compare("gone after the finalizer", get(cms+"/fin"))
	c.Setup(post(cms, cm("x1", "del=yes")), post(cms, cm("x2", "del=yes")))
	c.Compare("delete collection with a selector", del(cms+"?labelSelector=del%3Dyes"))
	c.Compare("delete collection matching nothing", del(cms+"?labelSelector=del%3Dnothing"))
}

// TestServerSideApply covers the observed server-side apply rules.
func TestServerSideApply(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-ssa")
	apply := func(query, body string) Request {
		return patch(cms+"/s"+query, "application/apply-patch+yaml", body)
	}
	c.Compare("apply creates", apply("?fieldManager=m1", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"a":"1","b":"1"}}`))
	c.Compare("apply again, same manager", apply("?fieldManager=m1", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"a":"1"}}`))
	c.Compare("patch by another manager", patch(cms+"/s?fieldManager=kubectl-patch", "application/merge-patch+json", `{"data":{"a":"2"}}`))
	c.Compare("apply conflicts", apply("?fieldManager=m1", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"a":"3"}}`))
	c.Compare("apply with force", apply("?fieldManager=m1&force=true", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"a":"3"}}`))
	c.Compare("apply without fieldManager", apply("", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"data":{"a":"3"}}`))
	c.Compare("apply YAML", apply("?fieldManager=m2", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  y: \"1\"\n"))
	c.Compare("get after apply", get(cms+"/s"))
}

// TestTables covers the Table answers kubectl get reads.
func TestTables(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-tables")
	c.Setup(createCM("a", "k", "v"), post(cms, cm("b", "app=x")))
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	accept := func(path string) Request {
		return Request{Path: path, Header: map[string]string{"Accept": table}}
	}
	c.Compare("list as Table", accept(cms+"?limit=500"))
	c.Compare("one object as Table", accept(cms+"/a"))
	c.Compare("Table with includeObject=Object", accept(cms+"?includeObject=Object"))
	c.Compare("Table with includeObject=None", accept(cms+"?includeObject=None"))
	c.Compare("Table v1beta1 only", Request{Path: cms, Header: map[string]string{"Accept": "application/json;as=Table;v=v1beta1;g=meta.k8s.io"}})
	c.Compare("only Table, of something without one", Request{Path: "/version", Header: map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}},
		CompareOptions{IgnorePaths: []string{"buildDate", "compiler", "gitCommit", "gitTreeState", "gitVersion", "goVersion", "major", "minor", "platform", "emulationMajor", "emulationMinor", "minCompatibilityMajor", "minCompatibilityMinor"}})
	c.Compare("namespaces as Table", accept("/api/v1/namespaces/{ns}"))
}
