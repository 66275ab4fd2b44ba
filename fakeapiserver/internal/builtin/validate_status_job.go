package builtin

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// A Job's status rules: the real ValidateJobUpdateStatus with the options
// its status strategy sets (the JobManagedBy rules, on in v1.37): most
// checks run only when the fields they read change, so a status that was
// already wrong can still be written unchanged.

// jobState is what the status rules read of one Job.
type jobState struct {
	status                                       *jsonv.Value
	complete, failed, failureTarget, criteriaMet bool
}

func readJob(obj *jsonv.Value) jobState {
	status := sub(obj, "status")
	j := jobState{status: status}
	for _, c := range items(status, "conditions") {
		if str(c, "status") != "True" {
			continue
		}
		switch str(c, "type") {
		case "Complete":
			j.complete = true
		case "Failed":
			j.failed = true
		case "FailureTarget":
			j.failureTarget = true
		case "SuccessCriteriaMet":
			j.criteriaMet = true
		}
	}
	return j
}

func (j jobState) finished() bool { return j.complete || j.failed }

// conditionIs reports whether the Job has a condition of typ with status.
func conditionIs(status *jsonv.Value, typ, s string) bool {
	for _, c := range items(status, "conditions") {
		if str(c, "type") == typ && str(c, "status") == s {
			return true
		}
	}
	return false
}

// jobTime reads a status timestamp; ok is false when it is unset.
func jobTime(status *jsonv.Value, key string) (time.Time, bool) {
	s := str(status, key)
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

func sameTime(a, b *jsonv.Value, key string) bool {
	x, okx := jobTime(a, key)
	y, oky := jobTime(b, key)
	return okx == oky && x.Equal(y)
}

func jobStatus(v *validator, _ *meta.ObjectMeta, obj, old *jsonv.Value) {
	spec := sub(obj, "spec")
	j, was := readJob(obj), readJob(old)
	status, oldStatus := j.status, was.status
	const conds = "status.conditions"
	invalidConds := func(detail string) {
		v.add(FieldError{Type: meta.CauseFieldValueInvalid, Field: conds, Detail: detail})
	}
	changed := func(key string) bool { return !same(status, oldStatus, key) }
	completeChanged := j.complete != was.complete
	failedChanged := j.failed != was.failed
	finishedChanged := j.finished() != was.finished()
	targetChanged := j.failureTarget != was.failureTarget
	criteriaChanged := j.criteriaMet != was.criteriaMet
	startChanged := !sameTime(status, oldStatus, "startTime")
	completionChanged := !sameTime(status, oldStatus, "completionTime")
	failedIndexesChanged := changed("failedIndexes")
	activeChanged := changed("active")
	indexed := str(spec, "completionMode") == "Indexed"
	active, _ := integer(status, "active")

	v.nonNegativeAll(status, "active", "succeeded", "failed", "ready", "terminating")
	v.uncountedPods(sub(status, "uncountedTerminatedPods"))
	if (completeChanged || failedChanged) && j.complete && j.failed {
		invalidConds("cannot set Complete=True and Failed=true conditions")
	}
	if (completeChanged || targetChanged) && j.complete && j.failureTarget {
		invalidConds("cannot set Complete=True and FailureTarget=true conditions")
	}
	_, hasCompletion := jobTime(status, "completionTime")
	if (completeChanged || completionChanged) && hasCompletion && !j.complete {
		v.invalid("status.completionTime", str(status, "completionTime"), "cannot set completionTime when there is no Complete=True condition")
	}
	if (completeChanged || completionChanged) && !hasCompletion && j.complete {
		v.required("status.completionTime", "completionTime is required for Complete jobs")
	}
	if startChanged || completionChanged {
		start, okS := jobTime(status, "startTime")
		end, okE := jobTime(status, "completionTime")
		if okS && okE && end.Before(start) {
			v.invalid("status.completionTime", str(status, "completionTime"), "must be equal to or after `startTime`")
		}
	}
	if (failedChanged || failedIndexesChanged) && j.failed && !j.failureTarget {
		invalidConds("cannot set Failed=True condition without the FailureTarget=true condition")
	}
	if (completeChanged || criteriaChanged) && j.complete && !j.criteriaMet {
		invalidConds("cannot set Complete=True condition without the SuccessCriteriaMet=true condition")
	}
	if (finishedChanged || activeChanged) && active > 0 && j.finished() {
		v.invalidRaw("status.active", strconv.FormatInt(active, 10), "active>0 is invalid for finished job")
	}
	completions, hasCompletions := integer(spec, "completions")
	suspendedEmpty := isTrue(spec, "suspend") && hasCompletions && completions == 0
	if _, ok := jobTime(status, "startTime"); (finishedChanged || startChanged) && !suspendedEmpty && !ok && j.finished() {
		v.required("status.startTime", "startTime is required for finished job")
	}
	if uncounted := present(status, "uncountedTerminatedPods"); (finishedChanged || changed("uncountedTerminatedPods")) && j.finished() && uncounted != nil &&
		len(stringsOf(uncounted, "failed"))+len(stringsOf(uncounted, "succeeded")) > 0 {
		v.invalidRaw("status.uncountedTerminatedPods", shownUncounted(uncounted), "must be empty for finished job")
	}
	jobStatusIndexes(v, spec, status, oldStatus, indexed)
	if n, ok := integer(status, "terminating"); (finishedChanged || changed("terminating")) && ok && n > 0 && j.finished() {
		v.invalidRaw("status.terminating", strconv.FormatInt(n, 10), "terminating>0 is invalid for finished job")
	}
	if ready, ok := integer(status, "ready"); (changed("ready") || activeChanged) && ok && ready > active {
		v.invalidRaw("status.ready", strconv.FormatInt(ready, 10), "cannot set more ready pods than active")
	}
	if j.criteriaMet && j.failed {
		invalidConds("cannot set SuccessCriteriaMet=True and Failed=true conditions")
	}
	if j.criteriaMet && j.failureTarget {
		invalidConds("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions")
	}
	if present(spec, "successPolicy") != nil && !j.criteriaMet && j.complete {
		invalidConds("cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True")
	}

	for _, typ := range []string{"Failed", "Complete", "FailureTarget"} {
		if conditionIs(oldStatus, typ, "True") && !conditionIs(status, typ, "True") {
			invalidConds(fmt.Sprintf("cannot disable the terminal %s=True condition", typ))
		}
	}
	failed, _ := integer(status, "failed")
	if wasFailed, _ := integer(oldStatus, "failed"); failed < wasFailed {
		v.invalidRaw("status.failed", strconv.FormatInt(failed, 10), "cannot decrease the failed counter")
	}
	parallelism, hasParallelism := integer(spec, "parallelism")
	if !indexed || hasCompletions != hasParallelism || completions != parallelism {
		succeeded, _ := integer(status, "succeeded")
		if wasSucceeded, _ := integer(oldStatus, "succeeded"); succeeded < wasSucceeded {
			v.invalidRaw("status.succeeded", strconv.FormatInt(succeeded, 10), "cannot decrease the succeeded counter")
		}
	}
	if _, had := jobTime(oldStatus, "completionTime"); had && hasCompletion && completionChanged {
		v.invalid("status.completionTime", str(status, "completionTime"), "field is immutable")
	}
	resuming := conditionIs(oldStatus, "Suspended", "True") && conditionIs(status, "Suspended", "False")
	if _, had := jobTime(oldStatus, "startTime"); had && startChanged && !resuming && !isTrue(spec, "suspend") {
		shown := "null"
		if s := str(status, "startTime"); s != "" {
			shown = strconv.Quote(s)
		}
		v.invalidRaw("status.startTime", shown, "field is immutable for unsuspended job once set")
	}
	if was.criteriaMet && !j.criteriaMet {
		invalidConds("cannot disable the SuccessCriteriaMet=True condition")
	}
	if was.complete && !was.criteriaMet && j.criteriaMet {
		invalidConds("cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions")
	}
}

// uncountedPods checks the uids of status.uncountedTerminatedPods: none
// empty, none twice across both lists.
func (v *validator) uncountedPods(u *jsonv.Value) {
	seen := map[string]bool{}
	for _, list := range []string{"succeeded", "failed"} {
		for i, uid := range stringsOf(u, list) {
			p := index("status.uncountedTerminatedPods."+list, i)
			switch {
			case uid == "":
				v.invalid(p, uid, "must not be empty")
			case seen[uid]:
				v.duplicate(p, uid)
			default:
				seen[uid] = true
			}
		}
	}
}

// shownUncounted renders uncountedTerminatedPods as the real server shows
// its Go struct.
func shownUncounted(u *jsonv.Value) string {
	o := jsonv.NewObject()
	for _, k := range [][2]string{{"Succeeded", "succeeded"}, {"Failed", "failed"}} {
		val := jsonv.Value{Kind: jsonv.Null}
		if x := u.Get(k[1]); x != nil && x.Kind == jsonv.Array {
			val = x.Clone()
		}
		o.Set(k[0], val)
	}
	return string(jsonv.Marshal(o))
}

// jobStatusIndexes checks an Indexed Job's completed and failed indexes
// when a status write changes them: each list parses within completions,
// completedIndexes only for an Indexed Job, failedIndexes only with
// backoffLimitPerIndex, and no index in both.
func jobStatusIndexes(v *validator, spec, status, oldStatus *jsonv.Value, indexed bool) {
	failedIndexesChanged := !same(status, oldStatus, "failedIndexes")
	completedIndexesChanged := str(status, "completedIndexes") != str(oldStatus, "completedIndexes")
	completions, hasCompletions := integer(spec, "completions")
	_, perIndex := integer(spec, "backoffLimitPerIndex")
	failedIndexes := status.Get("failedIndexes")
	if failedIndexes != nil && failedIndexes.Kind != jsonv.String {
		failedIndexes = nil
	}
	if completedIndexesChanged && hasCompletions {
		if _, err := indexesTotal(str(status, "completedIndexes"), completions); err != nil {
			v.invalid("status.completedIndexes", str(status, "completedIndexes"), "error parsing completedIndexes: "+err.Error())
		}
	}
	if failedIndexesChanged && hasCompletions && perIndex && failedIndexes != nil {
		if _, err := indexesTotal(failedIndexes.Str, completions); err != nil {
			v.invalid("status.failedIndexes", failedIndexes.Str, "error parsing failedIndexes: "+err.Error())
		}
	}
	if completedIndexesChanged && str(status, "completedIndexes") != "" && !indexed {
		v.invalid("status.completedIndexes", str(status, "completedIndexes"), "cannot set non-empty completedIndexes when non-indexed completion mode")
	}
	if failedIndexesChanged && !perIndex && failedIndexes != nil {
		v.invalid("status.failedIndexes", failedIndexes.Str, "cannot set non-null failedIndexes when backoffLimitPerIndex is null")
	}
	if (failedIndexesChanged || completedIndexesChanged) && hasCompletions && failedIndexes != nil {
		if err := indexesOverlap(str(status, "completedIndexes"), failedIndexes.Str, completions); err != nil {
			v.invalid("status.failedIndexes", failedIndexes.Str, err.Error())
		}
	}
}
