package differential

// req points to an entry of docs/requests-fakeapiserver.md.
func req(n string) string { return "docs/requests-fakeapiserver.md, e2e suite §" + n }

// known lists the differences between the fake and the real server that
// are written down. Entries point to docs/fidelity.md (accepted, with why)
// or to docs/requests-fakeapiserver.md (relayed to the fake server's
// engineer: remove the entry when the fake server is fixed, and the test
// then holds the fix).
var known = []Known{
	{`continue, RV=0`, ``, req("1")},
	{`label selector`, `^message$`, req("2")},
	{`TestWatchValidation: resourceVersion=abc`, ``, req("3")},
	{`finalizer|second delete`, `managedFields`, req("4")},
	{`finalizer deletion`, `^events\[2\]\.object\.metadata\.finalizers$`, req("15")},
	{`TestTables|table watch`, ``, req("5")},
	{`TestServerSideApply|strategic merge patch`, ``, req("6")},
	{`TestCRUD: JSON patch$`, `data\.s|f:s`, req("6")},
	{`unknown field \((Warn|Strict)\)`, ``, req("7")},
	{`empty maps`, ``, req("8")},
	{`JSON patch`, `^details\.causes$`, req("9")},
	{`wrong kind|malformed body|NotAcceptable 406|RequestEntityTooLarge 413|UnsupportedMediaType 415|Invalid 422: bad label value`, `^(message|details|details\.causes\[0\]\.message)$`, req("10")},
	{`unknown group`, ``, req("11")},
	{`PUT on a collection`, ``, req("12")},
	{`bookmark before the deadline`, `plain bookmarks`, req("13")},
	{`TestCompaction`, `^items\[[0-9]+\]\.(eventTime|firstTimestamp|lastTimestamp|reportingComponent|reportingInstance|metadata\.managedFields)`, req("14")},
}
