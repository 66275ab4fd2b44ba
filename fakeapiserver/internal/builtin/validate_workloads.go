package builtin

import (
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Validation of Deployments, ReplicaSets, DaemonSets, StatefulSets, Jobs,
// CronJobs, ReplicationControllers and PodTemplates.

// templateLabels returns a pod template's labels.
func templateLabels(t *jsonv.Value) map[string]string {
	if md := present(t, "metadata"); md != nil {
		return stringMap(md, "labels")
	}
	return nil
}

// replicaTemplate checks the pod template of a controller that keeps
// pods running: its labels match the selector, the pod spec is valid, it
// restarts Always and has no deadline.
func (v *validator) replicaTemplate(path string, t *jsonv.Value, sel *labelSelector) {
	if t == nil {
		v.required(path, "")
		return
	}
	if !sel.empty() && !sel.matches(templateLabels(t)) {
		v.invalidRaw(path+".metadata.labels", shownMap(templateLabels(t)), "`selector` does not match template `labels`")
	}
	v.podTemplate(path, t)
	spec := sub(t, "spec")
	if rp := str(spec, "restartPolicy"); rp != "Always" {
		v.notSupported(path+".spec.restartPolicy", rp, "Always")
	}
	if !unset(spec, "activeDeadlineSeconds") {
		v.forbidden(path+".spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicaSet is not Supported")
	}
}

// requiredSelector checks a controller's selector: present, valid, and
// (when nonEmpty) not empty. It returns the selector read.
func (v *validator) requiredSelector(path string, spec *jsonv.Value, emptyMsg string) *labelSelector {
	sel := readSelector(spec, "selector")
	if sel == nil {
		v.required(path, "")
		return nil
	}
	v.selector(path, sel)
	if sel.empty() && emptyMsg != "" {
		v.invalidRaw(path, "{}", emptyMsg)
	}
	return sel
}

func validateDeployment(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.nonNegative(spec, "replicas", "spec.replicas")
	sel := v.requiredSelector("spec.selector", spec, "empty selector is invalid for deployment")
	v.replicaTemplate("spec.template", present(spec, "template"), sel)
	v.deploymentStrategy("spec.strategy", sub(spec, "strategy"))
	v.nonNegative(spec, "minReadySeconds", "spec.minReadySeconds")
	v.nonNegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit")
	if pds, ok := integer(spec, "progressDeadlineSeconds"); ok {
		v.nonNegative(spec, "progressDeadlineSeconds", "spec.progressDeadlineSeconds")
		if mrs, _ := integer(spec, "minReadySeconds"); pds <= mrs {
			v.invalidRaw("spec.progressDeadlineSeconds", strconv.FormatInt(pds, 10), "must be greater than minReadySeconds")
		}
	}
}

// deploymentStrategy checks a Deployment's strategy. An unknown type is
// shown as the real server shows its internal struct.
func (v *validator) deploymentStrategy(path string, s *jsonv.Value) {
	switch typ := str(s, "type"); typ {
	case "Recreate":
		if !unset(s, "rollingUpdate") {
			v.forbidden(path+".rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")
		}
	case "RollingUpdate":
		ru := present(s, "rollingUpdate")
		if ru == nil {
			v.required(path+".rollingUpdate", "this should be defaulted and never be nil")
			return
		}
		mu, ms := ru.Get("maxUnavailable"), ru.Get("maxSurge")
		v.intOrPercent(path+".rollingUpdate.maxUnavailable", mu)
		v.intOrPercent(path+".rollingUpdate.maxSurge", ms)
		if intOrPercentValue(mu) == 0 && intOrPercentValue(ms) == 0 {
			v.invalidRaw(path+".rollingUpdate.maxUnavailable", shownIntOrString(mu), "may not be 0 when `maxSurge` is 0")
		}
		if mu != nil && mu.Kind == jsonv.String && percentRE.MatchString(mu.Str) && intOrPercentValue(mu) > 100 {
			v.invalid(path+".rollingUpdate.maxUnavailable", mu.Str, "must not be greater than 100%")
		}
	default:
		ru := "null"
		if r := present(s, "rollingUpdate"); r != nil {
			ru = string(jsonv.Marshal(*r))
		}
		v.notSupportedRaw(path, `{"Type":`+strconv.Quote(typ)+`,"RollingUpdate":`+ru+`}`, "Recreate", "RollingUpdate")
	}
}

// intOrPercent checks a non-negative int or a percent string.
func (v *validator) intOrPercent(field string, val *jsonv.Value) {
	if val == nil {
		return
	}
	switch val.Kind {
	case jsonv.String:
		if !percentRE.MatchString(val.Str) {
			v.invalid(field, val.Str, validation.RegexMessage("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, "1%", "93%"))
		} else if intOrPercentValue(val) < 0 {
			v.invalid(field, val.Str, "must be greater than or equal to 0")
		}
	case jsonv.Number:
		if n, _ := strconv.ParseInt(val.Str, 10, 64); n < 0 {
			v.invalidRaw(field, val.Str, "must be greater than or equal to 0")
		}
	}
}

// intOrPercentValue is the number of an int or percent ("25%" is 25).
func intOrPercentValue(val *jsonv.Value) int64 {
	if val == nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSuffix(val.Str, "%"), 10, 64)
	return n
}

// shownIntOrString shows an int-or-string value as a message does.
func shownIntOrString(val *jsonv.Value) string {
	if val == nil {
		return "null"
	}
	if val.Kind == jsonv.String {
		return strconv.Quote(val.Str)
	}
	return val.Str
}

func validateReplicaSet(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.nonNegative(spec, "replicas", "spec.replicas")
	v.nonNegative(spec, "minReadySeconds", "spec.minReadySeconds")
	sel := v.requiredSelector("spec.selector", spec, "empty selector is invalid for deployment")
	v.replicaTemplate("spec.template", present(spec, "template"), sel)
}

func validateDaemonSet(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	sel := v.requiredSelector("spec.selector", spec, "empty selector is invalid for daemonset")
	if sel != nil && !sel.empty() && !sel.matches(templateLabels(present(spec, "template"))) {
		v.invalidRaw("spec.template.metadata.labels", shownMap(templateLabels(present(spec, "template"))), "`selector` does not match template `labels`")
	}
	t := present(spec, "template")
	if t == nil {
		v.required("spec.template", "")
		return
	}
	v.podTemplate("spec.template", t)
	if rp := str(sub(t, "spec"), "restartPolicy"); rp != "Always" {
		v.notSupported("spec.template.spec.restartPolicy", rp, "Always")
	}
	v.nonNegative(spec, "minReadySeconds", "spec.minReadySeconds")
	v.nonNegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit")
}

func validateStatefulSet(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	switch p := str(spec, "podManagementPolicy"); p {
	case "OrderedReady", "Parallel":
	case "":
		v.required("spec.podManagementPolicy", "")
	default:
		v.invalid("spec.podManagementPolicy", p, "must be 'OrderedReady' or 'Parallel'")
	}
	if us := present(spec, "updateStrategy"); us != nil {
		switch t := str(us, "type"); t {
		case "OnDelete":
			if !unset(us, "rollingUpdate") {
				v.invalid("spec.updateStrategy.rollingUpdate", "", "only allowed for updateStrategy 'RollingUpdate'")
			}
		case "RollingUpdate", "":
			if ru := present(us, "rollingUpdate"); ru != nil {
				v.nonNegative(ru, "partition", "spec.updateStrategy.rollingUpdate.partition")
			}
		default:
			v.invalid("spec.updateStrategy", t, "must be 'RollingUpdate' or 'OnDelete'")
		}
	}
	v.nonNegative(spec, "replicas", "spec.replicas")
	v.nonNegative(spec, "minReadySeconds", "spec.minReadySeconds")
	sel := v.requiredSelector("spec.selector", spec, "empty selector is invalid for statefulset")
	t := present(spec, "template")
	if t == nil {
		v.required("spec.template", "")
		return
	}
	if sel != nil && !sel.empty() && !sel.matches(templateLabels(t)) {
		v.invalidRaw("spec.template.metadata.labels", shownMap(templateLabels(t)), "`selector` does not match template `labels`")
	}
	v.podTemplate("spec.template", t)
	if rp := str(sub(t, "spec"), "restartPolicy"); rp != "Always" {
		v.notSupported("spec.template.spec.restartPolicy", rp, "Always")
	}
}

func validateJob(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	if ms := spec.Get("manualSelector"); ms != nil && ms.Kind == jsonv.Bool && ms.B {
		if sel := readSelector(spec, "selector"); sel == nil {
			v.required("spec.selector", "")
		} else if !sel.matches(templateLabels(present(spec, "template"))) {
			v.invalidRaw("spec.template.metadata.labels", shownMap(templateLabels(present(spec, "template"))), "`selector` does not match template `labels`")
		}
	}
	v.jobSpec("spec", spec)
}

// jobSpec checks a Job's spec (also a CronJob's job template's).
func (v *validator) jobSpec(path string, spec *jsonv.Value) {
	for _, k := range []string{"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"} {
		v.nonNegative(spec, k, path+"."+k)
	}
	mode := str(spec, "completionMode")
	switch mode {
	case "", "NonIndexed":
		for _, k := range []string{"backoffLimitPerIndex", "maxFailedIndexes"} {
			if n, ok := integer(spec, k); ok {
				v.invalidRaw(path+"."+k, strconv.FormatInt(n, 10), "requires indexed completion mode")
			}
		}
	case "Indexed":
		if unset(spec, "completions") {
			v.required(path+".completions", "when completion mode is Indexed")
		}
	default:
		v.notSupported(path+".completionMode", mode, "NonIndexed", "Indexed")
	}
	v.jobPolicies(path, spec)
	t := sub(spec, "template")
	v.podTemplate(path+".template", t)
	rp := str(sub(t, "spec"), "restartPolicy")
	switch {
	case rp == "Always" || rp == "":
		v.required(path+".template.spec.restartPolicy", `valid values: "OnFailure", "Never"`)
	case rp != "OnFailure" && rp != "Never":
		v.notSupported(path+".template.spec.restartPolicy", rp, "OnFailure", "Never")
	case !unset(spec, "podFailurePolicy") && rp != "Never":
		v.invalid(path+".template.spec.restartPolicy", rp, `only "Never" is supported when podFailurePolicy is specified`)
	}
}

func validateCronJob(v *validator, m *meta.ObjectMeta, obj *jsonv.Value) {
	if len(m.Name) > 52 {
		v.invalid("metadata.name", m.Name, "must be no more than 52 characters")
	}
	spec := sub(obj, "spec")
	sched := str(spec, "schedule")
	if sched == "" {
		v.required("spec.schedule", "")
	} else if msg := cronProblem(sched); msg != "" {
		v.invalid("spec.schedule", sched, msg)
	}
	switch cp := str(spec, "concurrencyPolicy"); cp {
	case "Allow", "Forbid", "Replace":
	case "":
		v.required("spec.concurrencyPolicy", "")
	default:
		v.notSupported("spec.concurrencyPolicy", cp, "Allow", "Forbid", "Replace")
	}
	v.nonNegative(spec, "startingDeadlineSeconds", "spec.startingDeadlineSeconds")
	v.nonNegative(spec, "successfulJobsHistoryLimit", "spec.successfulJobsHistoryLimit")
	v.nonNegative(spec, "failedJobsHistoryLimit", "spec.failedJobsHistoryLimit")
	if jt := sub(spec, "jobTemplate"); jt != nil {
		v.jobSpec("spec.jobTemplate.spec", sub(jt, "spec"))
	}
}

func validateReplicationController(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	spec := sub(obj, "spec")
	v.nonNegative(spec, "replicas", "spec.replicas")
	v.nonNegative(spec, "minReadySeconds", "spec.minReadySeconds")
	sel := stringMap(spec, "selector")
	if len(sel) == 0 {
		v.required("spec.selector", "")
	}
	v.labels("spec.selector", sel)
	t := present(spec, "template")
	if t == nil {
		v.required("spec.template", "")
		return
	}
	labels := templateLabels(t)
	for k, want := range sel {
		if labels[k] != want {
			v.invalidRaw("spec.template.metadata.labels", shownMap(labels), "`selector` does not match template `labels`")
			break
		}
	}
	v.podTemplate("spec.template", t)
	if rp := str(sub(t, "spec"), "restartPolicy"); rp != "Always" {
		v.notSupported("spec.template.spec.restartPolicy", rp, "Always")
	}
}

func validatePodTemplate(v *validator, _ *meta.ObjectMeta, obj *jsonv.Value) {
	v.podTemplate("template", sub(obj, "template"))
}
