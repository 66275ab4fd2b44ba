package differential

// openDifference points to a section of docs/fidelity.md's "Open differences".
func openDifference(what string) string { return "docs/fidelity.md, open: " + what }

// accepted points to an entry of docs/fidelity.md's "Accepted differences".
func accepted(what string) string { return "docs/fidelity.md, accepted: " + what }

// known lists the differences between the fake and the real server that
// are written down in docs/fidelity.md, accepted (with the reason) or open.
// An entry that no difference needs any more fails the run (TestMain):
// remove it, and its entry in the docs, when the fake server is fixed; the
// test then holds the fix.
var known = []Known{
	{`label selector`, `^message$`, openDifference("label selector parse errors")},
	{`TestWatchValidation: resourceVersion=abc`, `^(status code|code|message|reason)$`, accepted("a watch at resourceVersion=abc is a 400 BadRequest (real: 500 without a reason)")},
	{`wrong kind|malformed body|NotAcceptable 406|Invalid 422: bad label value`, `^(message|details|details\.causes\[0\]\.message)$`, openDifference("Status message wording")},
	// In TestKubectl, Where is "TestKubectl: kubectl <step>" and Path
	// "<METHOD path?query>.<JSON path>" (or "requests", "output").
	{`TestKubectl: kubectl apply --server-side`, `configmaps/k\?fieldManager=kubectl[^.]*\.metadata\.(annotations\.kubectl\.kubernetes\.io/last-applied-configuration|managedFields\.length)$`, openDifference("kubectl apply --server-side over a client-side apply")},
}
