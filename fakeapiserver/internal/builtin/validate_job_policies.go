package builtin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Validation of a Job's pod failure policy, success policy and pod
// replacement policy.

// The real server's limits on a Job's policies.
const (
	maxPodFailureRules        = 20
	maxPodFailureExitCodes    = 255
	maxPodFailureConditions   = 20
	maxSuccessRules           = 20
	maxSucceededIndexesLength = 64 * 1024
)

// jobPolicies checks the policies of a Job's spec at path.
func (v *validator) jobPolicies(path string, spec *jsonv.Value) {
	pfp := present(spec, "podFailurePolicy")
	if pfp != nil {
		v.podFailurePolicy(path+".podFailurePolicy", spec, pfp)
	}
	if sp := present(spec, "successPolicy"); sp != nil {
		if str(spec, "completionMode") != "Indexed" {
			v.invalidRaw(path+".successPolicy", shownSuccessPolicy(sp), "requires indexed completion mode")
		} else {
			v.successPolicy(path+".successPolicy", spec, sp)
		}
	}
	if rp := spec.Get("podReplacementPolicy"); rp != nil && rp.Kind == jsonv.String {
		switch {
		case pfp != nil && rp.Str != "Failed":
			v.notSupported(path+".podReplacementPolicy", rp.Str, "Failed")
		case pfp == nil && rp.Str != "Failed" && rp.Str != "TerminatingOrFailed":
			v.notSupported(path+".podReplacementPolicy", rp.Str, "Failed", "TerminatingOrFailed")
		}
	}
}

// podFailurePolicy checks a pod failure policy's rules: an action each,
// and either exit codes or pod conditions to match.
func (v *validator) podFailurePolicy(p string, spec, pfp *jsonv.Value) {
	rules := items(pfp, "rules")
	if len(rules) > maxPodFailureRules {
		v.tooMany(p+".rules", len(rules), maxPodFailureRules)
	}
	names := map[string]bool{}
	tspec := sub(sub(spec, "template"), "spec")
	for _, list := range []string{"containers", "initContainers"} {
		for _, c := range items(tspec, list) {
			names[str(c, "name")] = true
		}
	}
	for i, r := range rules {
		rp := index(p+".rules", i)
		switch action := str(r, "action"); action {
		case "":
			v.required(rp+".action", `valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`)
		case "FailIndex":
			if unset(spec, "backoffLimitPerIndex") {
				v.invalid(rp+".action", action, "requires the backoffLimitPerIndex to be set")
			}
		case "Count", "FailJob", "Ignore":
		default:
			v.notSupported(rp+".action", action, "Count", "FailIndex", "FailJob", "Ignore")
		}
		codes := present(r, "onExitCodes")
		if codes != nil {
			v.onExitCodes(rp+".onExitCodes", codes, names)
		}
		conds := items(r, "onPodConditions")
		if len(conds) > 0 {
			v.onPodConditions(rp+".onPodConditions", conds)
		}
		switch {
		case codes != nil && len(conds) > 0:
			v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: rp, Detail: "specifying both OnExitCodes and OnPodConditions is not supported"})
		case codes == nil && len(conds) == 0:
			v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: rp, Detail: "specifying one of OnExitCodes and OnPodConditions is required"})
		}
	}
}

// tooMany reports a list of n items over limit.
func (v *validator) tooMany(field string, n, limit int) {
	unit := "items"
	if limit == 1 {
		unit = "item"
	}
	v.add(FieldError{Type: apistatus.CauseFieldValueTooMany, Field: field, Value: strconv.Itoa(n), Detail: "must have at most " + strconv.Itoa(limit) + " " + unit})
}

// onExitCodes checks a rule's exit codes: an operator, a container of
// the template, and values that are set, in order, unique and not 0 for
// In.
func (v *validator) onExitCodes(p string, codes *jsonv.Value, names map[string]bool) {
	op := str(codes, "operator")
	switch op {
	case "":
		v.required(p+".operator", `valid values: ["In" "NotIn"]`)
	case "In", "NotIn":
	default:
		v.notSupported(p+".operator", op, "In", "NotIn")
	}
	if c := codes.Get("containerName"); c != nil && c.Kind == jsonv.String && !names[c.Str] {
		v.invalid(p+".containerName", c.Str, "must be one of the container or initContainer names in the pod template")
	}
	var values []int64
	if arr := codes.Get("values"); arr != nil && arr.Kind == jsonv.Array {
		// An empty list is set, and shown as [].
		values = []int64{}
		for _, x := range arr.Arr {
			n, _ := strconv.ParseInt(x.Str, 10, 64)
			values = append(values, n)
		}
	}
	vp := p + ".values"
	switch {
	case len(values) == 0:
		v.invalidRaw(vp, shownInts(values), "at least one value is required")
	case len(values) > maxPodFailureExitCodes:
		v.tooMany(vp, len(values), maxPodFailureExitCodes)
	}
	seen := map[int64]bool{}
	ordered := true
	for j, n := range values {
		ip := index(vp, j)
		if op == "In" && n == 0 {
			v.invalidRaw(ip, "0", "must not be 0 for the In operator")
		}
		if seen[n] {
			v.add(FieldError{Type: meta.CauseFieldValueDuplicate, Field: ip, Value: strconv.FormatInt(n, 10)})
		}
		seen[n] = true
		if j > 0 && values[j-1] > n {
			ordered = false
		}
	}
	if !ordered {
		v.invalidRaw(vp, shownInts(values), "must be ordered")
	}
}

// shownInts renders a list of numbers as the real server shows one.
func shownInts(values []int64) string {
	if values == nil {
		return "null"
	}
	s := make([]string, len(values))
	for i, n := range values {
		s[i] = strconv.FormatInt(n, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// onPodConditions checks a rule's pod condition patterns: a qualified
// type and a condition status each.
func (v *validator) onPodConditions(p string, conds []*jsonv.Value) {
	if len(conds) > maxPodFailureConditions {
		v.tooMany(p, len(conds), maxPodFailureConditions)
	}
	for j, c := range conds {
		cp := index(p, j)
		t := str(c, "type")
		v.problems(cp+".type", t, qualifiedNameProblems(t))
		switch s := str(c, "status"); s {
		case "":
			v.required(cp+".status", `valid values: ["False" "True" "Unknown"]`)
		case "True", "False", "Unknown":
		default:
			v.notSupported(cp+".status", s, "False", "True", "Unknown")
		}
	}
}

// successPolicy checks an indexed Job's success policy: at least one
// rule, each with a count or indexes within the Job's completions.
func (v *validator) successPolicy(p string, spec, sp *jsonv.Value) {
	rules := items(sp, "rules")
	if len(rules) == 0 {
		v.required(p+".rules", "at least one rules must be specified when the successPolicy is specified")
	}
	if len(rules) > maxSuccessRules {
		v.tooMany(p+".rules", len(rules), maxSuccessRules)
	}
	completions, _ := integer(spec, "completions")
	for i, r := range rules {
		rp := index(p+".rules", i)
		idx := r.Get("succeededIndexes")
		count, hasCount := integer(r, "succeededCount")
		if (idx == nil || idx.Kind != jsonv.String) && !hasCount {
			v.required(rp, "at least one of succeededCount or succeededIndexes must be specified")
		}
		var total int64
		if idx != nil && idx.Kind == jsonv.String {
			if len(idx.Str) > maxSucceededIndexesLength {
				v.tooLong(rp+".succeededIndexes", maxSucceededIndexesLength)
			}
			var err error
			if total, err = indexesTotal(idx.Str, completions); err != nil {
				v.invalid(rp+".succeededIndexes", idx.Str, "error parsing succeededIndexes: "+err.Error())
			}
		}
		if hasCount {
			cp := rp + ".succeededCount"
			if count < 0 {
				v.invalidRaw(cp, strconv.FormatInt(count, 10), "must be greater than or equal to 0")
			}
			if count > completions {
				v.invalidRaw(cp, strconv.FormatInt(count, 10), fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions))
			}
			if idx != nil && idx.Kind == jsonv.String && count > total {
				v.invalidRaw(cp, strconv.FormatInt(count, 10), fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total))
			}
		}
	}
}

// shownSuccessPolicy renders a success policy as the real server shows
// its Go struct in a message.
func shownSuccessPolicy(sp *jsonv.Value) string {
	rules := jsonv.Value{Kind: jsonv.Array}
	for _, r := range items(sp, "rules") {
		o := jsonv.NewObject()
		for _, k := range [][2]string{{"SucceededIndexes", "succeededIndexes"}, {"SucceededCount", "succeededCount"}} {
			val := jsonv.Value{Kind: jsonv.Null}
			if x := r.Get(k[1]); x != nil {
				val = x.Clone()
			}
			o.Set(k[0], val)
		}
		rules.Arr = append(rules.Arr, o)
	}
	if x := sp.Get("rules"); x == nil || x.Kind != jsonv.Array {
		// Unset rules are a nil slice; an empty list shows as [].
		rules = jsonv.Value{Kind: jsonv.Null}
	}
	o := jsonv.NewObject()
	o.Set("Rules", rules)
	return string(jsonv.Marshal(o))
}
