package builtin

import (
	"regexp"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// conditionReasonFmt is the format of a metav1.Condition's reason.
const conditionReasonFmt = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"

var conditionReasonRE = regexp.MustCompile("^" + conditionReasonFmt + "$")

// conditions checks a list of metav1.Condition as the real
// ValidateConditions does: types unique and qualified names, a status of
// True, False or Unknown, a non-negative observedGeneration, a
// lastTransitionTime, a reason of the condition format within 1024
// bytes, and a message within 32 KiB.
func (v *validator) conditions(p string, conds []*jsonv.Value) {
	seen := map[string]bool{}
	for i, c := range conds {
		ip := index(p, i)
		typ := str(c, "type")
		if seen[typ] {
			v.duplicate(ip, typ)
		}
		seen[typ] = true
		if typ == "" {
			v.required(ip+".type", "is required")
		} else {
			v.problems(ip+".type", typ, qualifiedNameProblems(typ))
		}
		switch s := str(c, "status"); s {
		case "":
			v.required(ip+".status", "")
		case "True", "False", "Unknown":
		default:
			v.notSupported(ip+".status", s, "False", "True", "Unknown")
		}
		if n, ok := integer(c, "observedGeneration"); ok && n < 0 {
			v.invalidRaw(ip+".observedGeneration", strconv.FormatInt(n, 10), "must be greater than or equal to zero")
		}
		if str(c, "lastTransitionTime") == "" {
			v.required(ip+".lastTransitionTime", "")
		}
		reason := str(c, "reason")
		switch {
		case reason == "":
			v.required(ip+".reason", "")
		default:
			if !conditionReasonRE.MatchString(reason) {
				v.invalid(ip+".reason", reason, validation.RegexMessage("a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
					conditionReasonFmt, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"))
			}
			if len(reason) > 1024 {
				v.tooLong(ip+".reason", 1024)
			}
		}
		if len(str(c, "message")) > 32*1024 {
			v.tooLong(ip+".message", 32*1024)
		}
	}
}
