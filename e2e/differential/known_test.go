package differential

// req points to an entry of docs/requests-fakeapiserver.md.
func req(n string) string { return "docs/requests-fakeapiserver.md, e2e suite §" + n }

// fix points to an entry of docs/fidelity.md's "Differences still to fix".
func fix(what string) string { return "docs/fidelity.md, still to fix: " + what }

// accepted points to an entry of docs/fidelity.md's "Differences accepted".
func accepted(what string) string { return "docs/fidelity.md, accepted: " + what }

// known lists the differences between the fake and the real server that
// are written down. Entries point to docs/fidelity.md (accepted, with why,
// or still to fix) or to docs/requests-fakeapiserver.md (relayed to the
// fake server's engineer). An entry that no difference needs any more
// fails the run (TestMain): remove it, and its line in the docs, when the
// fake server is fixed; the test then holds the fix.
var known = []Known{
	{`label selector`, `^message$`, req("2")},
	{`TestWatchValidation: resourceVersion=abc`, `^(status code|code|message|reason)$`, accepted("a watch at resourceVersion=abc is a 400 BadRequest (real: 500 without a reason)")},
	{`finalizer|second delete`, `managedFields`, req("4")},
	{`empty maps`, ``, req("8")},
	{`wrong kind|malformed body|NotAcceptable 406|RequestEntityTooLarge 413|UnsupportedMediaType 415|Invalid 422: bad label value`, `^(message|details|details\.causes\[0\]\.message)$`, req("10")},
	// In TestKubectl, Where is "TestKubectl: kubectl <step>" and Path
	// "<METHOD path?query>.<JSON path>" (or "requests", "output").
	{`TestKubectl: kubectl (apply deployment|scale)`, `^(POST|GET) /apis/apps/v1/namespaces/[^/?]+/deployments(/d)?(\?[^.]*)?\.(spec\.|metadata\.managedFields\[0\]\.fieldsV1\.f:spec\.)`, accepted("no defaulting of built-in types")},
	{`TestKubectl: kubectl apply --server-side`, `configmaps/k\?fieldManager=kubectl[^.]*\.metadata\.(annotations\.kubectl\.kubernetes\.io/last-applied-configuration|managedFields\.length)$`, fix("kubectl apply --server-side over a client-side apply")},
	{`TestCompaction`, `^items\[[0-9]+\]\.(eventTime|firstTimestamp|lastTimestamp|reportingComponent|reportingInstance|metadata\.managedFields)`, req("14")},
}
