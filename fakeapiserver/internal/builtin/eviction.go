package builtin

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// The rules the real pods/eviction handler applies to a pod and the
// PodDisruptionBudgets that select it. Without the disruption controller
// (a server with no kube-controller-manager) a budget's status is never
// computed: its observedGeneration stays behind its generation and every
// eviction it guards is refused with 429, as on the real server.

// MaxDisruptedPods is the size of a budget's status.disruptedPods past
// which the real server refuses evictions it guards.
const MaxDisruptedPods = 2000

// EvictionSkipsBudgets reports whether an eviction deletes the pod
// without consulting budgets: a pod that is Succeeded, Failed or Pending,
// or already being deleted. pod holds the pod's members other than
// metadata.
func EvictionSkipsBudgets(pod *jsonv.Value, deleting bool) bool {
	switch str(sub2(pod, "status"), "phase") {
	case "Succeeded", "Failed", "Pending":
		return true
	}
	return deleting
}

// EvictionPinsVersion reports whether the delete of a pod whose budgets
// are skipped carries the pod's resourceVersion as a precondition (all
// but terminal and deleting pods, so that a pod turning Ready meanwhile
// is not deleted unchecked).
func EvictionPinsVersion(pod *jsonv.Value, deleting bool) bool {
	switch str(sub2(pod, "status"), "phase") {
	case "Succeeded", "Failed":
		return false
	}
	return !deleting
}

// PodReady reports whether the pod's Ready condition is True.
func PodReady(pod *jsonv.Value) bool {
	ready := false
	each(sub2(pod, "status"), "conditions", func(c *jsonv.Value) {
		if str(c, "type") == "Ready" {
			ready = str(c, "status") == "True"
		}
	})
	return ready
}

// BudgetSelects reports whether a PodDisruptionBudget (its members other
// than metadata) selects a pod with these labels. A budget without a
// selector, or with one that does not parse, selects nothing.
func BudgetSelects(pdb *jsonv.Value, labels map[string]string) bool {
	sel := readSelector(sub2(pdb, "spec"), "selector")
	if sel == nil {
		return false
	}
	for _, e := range sel.exprs {
		switch e.operator {
		case "In", "NotIn":
			if len(e.values) == 0 {
				return false
			}
		case "Exists", "DoesNotExist":
			if len(e.values) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return sel.matches(labels)
}

// UnhealthyPodEvictable reports whether a pod that is not Ready may be
// deleted without taking one of the budget's disruptions: the budget's
// unhealthyPodEvictionPolicy is AlwaysAllow, or it currently has the
// healthy pods it wants.
func UnhealthyPodEvictable(pdb *jsonv.Value) bool {
	if str(sub2(pdb, "spec"), "unhealthyPodEvictionPolicy") == "AlwaysAllow" {
		return true
	}
	st := sub2(pdb, "status")
	desired := intField(st, "desiredHealthy")
	return intField(st, "currentHealthy") >= desired && desired > 0
}

// BudgetRefusal is the 429 an eviction gets when it may not take a
// disruption from budget name now (the real server's wording; the cause
// says why).
func BudgetRefusal(name string, retryAfter int32, why string) *meta.Status {
	st := apistatus.New(429, meta.ReasonTooManyRequests, "Cannot evict pod as it would violate the pod's disruption budget.")
	st.Details = &meta.StatusDetails{RetryAfterSeconds: retryAfter,
		Causes: []meta.StatusCause{{Type: "DisruptionBudget", Message: why}}}
	return st
}

// BudgetPending is the 429 for a budget whose status the disruption
// controller has not computed for its current generation.
func BudgetPending(name string) *meta.Status {
	return BudgetRefusal(name, 10, fmt.Sprintf("The disruption budget %s is still being processed by the server.", name))
}

// TakeDisruption checks that the budget (its members other than
// metadata; generation and name from its metadata) allows one more
// disruption and, when it does, returns its status with the disruption
// taken: disruptionsAllowed decremented, the DisruptionAllowed condition
// set when none remain, and (unless dryRun) podName recorded in
// disruptedPods at now. It returns the real server's refusal otherwise.
func TakeDisruption(pdb *jsonv.Value, generation int64, name, podName string, now time.Time, dryRun bool) (jsonv.Value, *meta.Status) {
	st := jsonv.NewObject()
	if s := sub2(pdb, "status"); s != nil {
		st = s.Clone()
	}
	observed := intField(&st, "observedGeneration")
	allowed := intField(&st, "disruptionsAllowed")
	disrupted := present(&st, "disruptedPods")
	cond := statusCondition(&st, "DisruptionAllowed")
	switch {
	case observed < generation:
		return st, BudgetPending(name)
	case allowed < 0:
		return st, budgetForbidden(name, "pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	case disrupted != nil && len(disrupted.Obj) > MaxDisruptedPods:
		return st, budgetForbidden(name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller", "too many pending evictions not confirmed by PDB controller")
	case allowed == 0:
		return st, BudgetRefusal(name, 0, noDisruptionReason(name, &st, cond))
	}
	allowed--
	st.Set("disruptionsAllowed", number(allowed))
	if allowed == 0 {
		setCondition(&st, condition{typ: "DisruptionAllowed", status: "False", reason: "InsufficientPods", observed: observed}, now)
	}
	if dryRun {
		return st, nil
	}
	if disrupted == nil {
		st.Set("disruptedPods", jsonv.NewObject())
		disrupted = st.Get("disruptedPods")
	}
	disrupted.Set(podName, jsonv.NewString(now.UTC().Format(time.RFC3339)))
	return st, nil
}

// noDisruptionReason is the cause's message when a budget allows no
// disruption.
func noDisruptionReason(name string, st, cond *jsonv.Value) string {
	condFalse := cond != nil && str(cond, "status") == "False" && str(cond, "message") != ""
	current, desired := intField(st, "currentHealthy"), intField(st, "desiredHealthy")
	switch {
	case condFalse && str(cond, "reason") == "SyncFailed":
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", name, str(cond, "message"))
	case current <= desired:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", name, desired, current)
	case condFalse:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", name, str(cond, "reason"), str(cond, "message"))
	}
	return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", name)
}

// budgetForbidden is the 403 for a budget in a state that forbids
// evictions.
func budgetForbidden(name, err, why string) *meta.Status {
	st := apistatus.New(403, meta.ReasonForbidden, fmt.Sprintf("poddisruptionbudget.policy %q is forbidden: %s", name, err))
	st.Details = &meta.StatusDetails{Name: name, Group: "policy", Kind: "poddisruptionbudget",
		Causes: []meta.StatusCause{{Type: "DisruptionBudget", Message: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: %s", name, why)}}}
	return st
}

// condition is one entry of a status's conditions, as setCondition
// writes it: observed is its observedGeneration (metav1.Condition, 0
// omits it); probe adds the null lastProbeTime of a PodCondition.
type condition struct {
	typ, status, reason, message string
	observed                     int64
	probe                        bool
}

// setCondition sets the condition of c's type in st.conditions: its
// transition time moves to now only when its status changes.
func setCondition(st *jsonv.Value, c condition, now time.Time) {
	stamp := jsonv.NewString(now.UTC().Format(time.RFC3339))
	conds := st.Get("conditions")
	if conds == nil || conds.Kind != jsonv.Array {
		st.Set("conditions", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{}})
		conds = st.Get("conditions")
	}
	var cur *jsonv.Value
	for i := range conds.Arr {
		if conds.Arr[i].Kind == jsonv.Object && str(&conds.Arr[i], "type") == c.typ {
			cur = &conds.Arr[i]
			break
		}
	}
	if cur == nil {
		conds.Arr = append(conds.Arr, object(jsonv.Member{Key: "type", Value: jsonv.NewString(c.typ)}))
		cur = &conds.Arr[len(conds.Arr)-1]
	}
	if str(cur, "status") != c.status {
		cur.Set("status", jsonv.NewString(c.status))
		if c.observed != 0 {
			cur.Set("observedGeneration", number(c.observed))
		}
		if c.probe {
			cur.Set("lastProbeTime", jsonv.Value{Kind: jsonv.Null})
		}
		cur.Set("lastTransitionTime", stamp)
	}
	if c.observed != 0 {
		cur.Set("observedGeneration", number(c.observed))
	} else if !c.probe {
		cur.Delete("observedGeneration")
	}
	cur.Set("reason", jsonv.NewString(c.reason))
	cur.Set("message", jsonv.NewString(c.message))
}

// statusCondition returns the condition of type typ in st.conditions.
func statusCondition(st *jsonv.Value, typ string) *jsonv.Value {
	var found *jsonv.Value
	each(st, "conditions", func(c *jsonv.Value) {
		if found == nil && str(c, "type") == typ {
			found = c
		}
	})
	return found
}

// intField returns the integer under key, 0 when it is absent or not an
// integer.
func intField(v *jsonv.Value, key string) int64 {
	c := v.Get(key)
	if c == nil || c.Kind != jsonv.Number {
		return 0
	}
	n, _ := strconv.ParseInt(c.Str, 10, 64)
	return n
}

// SetPodCondition sets condition typ of a pod's status (st) to status,
// reason and message, as the real server's pod condition helper does: the
// transition time moves to now only when the status changes, and the
// probe time stays null.
func SetPodCondition(st *jsonv.Value, typ, status, reason, message string, now time.Time) {
	setCondition(st, condition{typ: typ, status: status, reason: reason, message: message, probe: true}, now)
}
