package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// The status rules of the API machinery's own kinds: flow control
// (written by the server's configuration controller) and storage version
// migrations (written by the migration controller).

// flowControlStatus checks that each condition of a FlowSchema or
// PriorityLevelConfiguration has a type, once.
func flowControlStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	seen := map[string]bool{}
	for i, c := range items(sub(obj, "status"), "conditions") {
		p, t := index("status.conditions", i)+".type", str(c, "type")
		if seen[t] {
			v.duplicate(p, t)
		}
		seen[t] = true
		if t == "" {
			v.required(p, "")
		}
	}
}

// svmStatus checks a StorageVersionMigration's status: a well-formed
// resourceVersion that never changes once set, valid conditions, and
// Succeeded and Failed each final and not both true.
func svmStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	status, oldStatus := sub(obj, "status"), sub(old, "status")
	rv := str(status, "resourceVersion")
	if rv != "" && !wellFormedRV(rv) {
		v.invalid("status.resourceVersion", rv, "resource version is not well formed: "+rv)
	}
	conds := items(status, "conditions")
	v.conditions("status.conditions", conds)
	if was := str(oldStatus, "resourceVersion"); was != "" && was != rv {
		v.invalid("status.resourceVersion", rv, "field is immutable")
	}
	succeeded, failed := firstConditionTrue(status, "Succeeded"), firstConditionTrue(status, "Failed")
	if succeeded && failed {
		v.invalidRaw("status.conditions", shownConditions(conds), "Both success and failed conditions cannot be true at the same time")
	}
	if firstConditionTrue(oldStatus, "Succeeded") && !succeeded {
		v.invalidRaw("status.conditions", shownConditions(conds), "Success condition cannot be set to false once it is true")
	}
	if firstConditionTrue(oldStatus, "Failed") && !failed {
		v.invalidRaw("status.conditions", shownConditions(conds), "Failed condition cannot be set to false once it is true")
	}
}

// wellFormedRV reports a resourceVersion that is a decimal integer
// without leading zeros.
func wellFormedRV(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// firstConditionTrue reports whether the first condition of typ is True
// (metav1 conditions are looked up by their first of a type).
func firstConditionTrue(status *jsonv.Value, typ string) bool {
	for _, c := range items(status, "conditions") {
		if str(c, "type") == typ {
			return str(c, "status") == "True"
		}
	}
	return false
}

// shownConditions renders a list of metav1.Condition as the real server
// shows it in a message: JSON in the Go field order, observedGeneration
// left out when 0.
func shownConditions(conds []*jsonv.Value) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, c := range conds {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":` + strconv.Quote(str(c, "type")) + `,"status":` + strconv.Quote(str(c, "status")))
		if n, _ := integer(c, "observedGeneration"); n != 0 {
			b.WriteString(`,"observedGeneration":` + strconv.FormatInt(n, 10))
		}
		t := "null"
		if s := str(c, "lastTransitionTime"); s != "" {
			t = strconv.Quote(s)
		}
		b.WriteString(`,"lastTransitionTime":` + t + `,"reason":` + strconv.Quote(str(c, "reason")) + `,"message":` + strconv.Quote(str(c, "message")) + `}`)
	}
	b.WriteByte(']')
	return b.String()
}
