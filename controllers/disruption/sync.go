package disruption

import (
	"context"
	"maps"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// pdbTarget is where budgets live.
var pdbTarget = kit.Target{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}

// sync computes the status of the budget key. A failure other than a
// conflict sets the fail-safe status (no disruption allowed, the
// DisruptionAllowed condition SyncFailed with the error), so that the
// eviction handler refuses what it cannot judge.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pdb, err := c.pdbs.Lister().Namespace(ns).Get(name)
	if err != nil {
		return nil // deleted
	}
	err = c.trySync(ctx, pdb)
	if err == nil || rest.IsConflict(err) || ctx.Err() != nil {
		return err
	}
	c.budgets.Logger().Info("sync failed", "pdb", key, "err", err)
	st := pdb.Status
	st.Conditions = append([]api.Condition(nil), st.Conditions...)
	st.DisruptionsAllowed = 0
	st.Conditions = api.SetCondition(st.Conditions, api.Condition{Type: api.DisruptionAllowedCondition, Status: api.ConditionFalse,
		Reason: api.SyncFailedReason, Message: err.Error(), ObservedGeneration: st.ObservedGeneration}, c.env.Clock.Now())
	return c.writeStatus(ctx, pdb, st)
}

// trySync works out the budget's counts from its pods and writes them.
func (c *Controller) trySync(ctx context.Context, pdb *api.PodDisruptionBudget) error {
	src := kit.Source{Component: component}
	pods, err := c.podsFor(pdb)
	if err != nil {
		c.env.Events.Eventf(src, budgetRef(pdb), api.EventWarning, "NoPods", "Failed to get pods: %v", err)
		return err
	}
	if len(pods) == 0 {
		c.env.Events.Eventf(src, budgetRef(pdb), api.EventNormal, "NoPods", "No matching pods found")
	}
	expected, desired, unmanaged, err := c.expectedPodCount(ctx, pdb, pods)
	if err != nil {
		c.env.Events.Eventf(src, budgetRef(pdb), api.EventWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", err)
		return err
	}
	if len(unmanaged) > 0 {
		c.budgets.Logger().Debug("budget selects pods no controller owns", "pdb", meta.Key(pdb), "pods", unmanaged)
		c.env.Events.Eventf(src, budgetRef(pdb), api.EventWarning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %s) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", pdb.Spec.Selector.GoString())
	}
	now := c.env.Clock.Now()
	disrupted, recheck := c.disruptedPods(pdb, pods, now)
	healthy := countHealthy(pods, disrupted, now)
	if err := c.updateStatus(ctx, pdb, healthy, desired, expected, disrupted); err != nil {
		return err
	}
	if !recheck.IsZero() {
		c.budgets.AddAt(meta.Key(pdb), recheck)
	}
	return nil
}

// podsFor lists the pods the budget selects.
func (c *Controller) podsFor(pdb *api.PodDisruptionBudget) ([]*api.Pod, error) {
	sel, err := pdb.Spec.Selector.Selector()
	if err != nil {
		return nil, err
	}
	return c.pods.Lister().Namespace(pdb.Namespace).List(sel), nil
}

// disruptedPods returns the entries of the budget's disruptedPods that
// still hold: pods that exist, are not being deleted yet, and were
// evicted less than DeletionTimeout ago; and when the first of those
// runs out (zero when none does). A pod evicted but never deleted gets
// the real controller's NotDeleted warning once its time runs out.
func (c *Controller) disruptedPods(pdb *api.PodDisruptionBudget, pods []*api.Pod, now time.Time) (map[string]meta.Time, time.Time) {
	out := map[string]meta.Time{}
	var recheck time.Time
	if pdb.Status.DisruptedPods == nil {
		return out, recheck
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		at, ok := pdb.Status.DisruptedPods[p.Name]
		if !ok {
			continue
		}
		expires := at.Add(DeletionTimeout)
		if expires.Before(now) {
			// The real controller's message names the namespace twice.
			c.env.Events.Eventf(kit.Source{Component: component}, podRef(p), api.EventWarning, "NotDeleted",
				"Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Namespace)
			continue
		}
		if recheck.IsZero() || expires.Before(recheck) {
			recheck = expires
		}
		out[p.Name] = at
	}
	return out, recheck
}

// countHealthy counts the pods that are Ready, not being deleted and not
// recently evicted.
func countHealthy(pods []*api.Pod, disrupted map[string]meta.Time, now time.Time) int32 {
	var n int32
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[p.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if api.IsPodReady(p) {
			n++
		}
	}
	return n
}

// updateStatus writes the budget's status when any of it changed: a
// budget that expects no pods allows no disruption, so that the first
// pods of a new budget are safe before the controller counted them.
func (c *Controller) updateStatus(ctx context.Context, pdb *api.PodDisruptionBudget, healthy, desired, expected int32, disrupted map[string]meta.Time) error {
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	cur := pdb.Status
	if cur.CurrentHealthy == healthy && cur.DesiredHealthy == desired && cur.ExpectedPods == expected &&
		cur.DisruptionsAllowed == allowed && sameDisrupted(cur.DisruptedPods, disrupted) &&
		cur.ObservedGeneration == pdb.Generation && conditionUpToDate(pdb) {
		return nil
	}
	st := api.PodDisruptionBudgetStatus{
		CurrentHealthy:     healthy,
		DesiredHealthy:     desired,
		ExpectedPods:       expected,
		DisruptionsAllowed: allowed,
		DisruptedPods:      disrupted,
		ObservedGeneration: pdb.Generation,
		Conditions:         append([]api.Condition(nil), cur.Conditions...),
	}
	cond := api.Condition{Type: api.DisruptionAllowedCondition, Status: api.ConditionFalse, Reason: api.InsufficientPodsReason, ObservedGeneration: st.ObservedGeneration}
	if allowed > 0 {
		cond.Status, cond.Reason = api.ConditionTrue, api.SufficientPodsReason
	}
	st.Conditions = api.SetCondition(st.Conditions, cond, c.env.Clock.Now())
	return c.writeStatus(ctx, pdb, st)
}

// sameDisrupted compares two disruptedPods maps, nil equal to empty.
func sameDisrupted(a, b map[string]meta.Time) bool {
	return maps.EqualFunc(a, b, func(x, y meta.Time) bool { return x.Equal(y.Time) })
}

// conditionUpToDate reports whether the budget's DisruptionAllowed
// condition agrees with its disruptionsAllowed for its generation.
func conditionUpToDate(pdb *api.PodDisruptionBudget) bool {
	cond := api.FindCondition(pdb.Status.Conditions, api.DisruptionAllowedCondition)
	if cond == nil || pdb.Status.ObservedGeneration != pdb.Generation {
		return false
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return cond.Status == api.ConditionTrue && cond.Reason == api.SufficientPodsReason
	}
	return cond.Status == api.ConditionFalse && cond.Reason == api.InsufficientPodsReason
}

// writeStatus replaces the budget's status, conditional on the version
// the controller read.
func (c *Controller) writeStatus(ctx context.Context, pdb *api.PodDisruptionBudget, st api.PodDisruptionBudgetStatus) error {
	return kit.PutStatus(ctx, c.env.Client, pdbTarget, "policy/v1", "PodDisruptionBudget", &pdb.ObjectMeta, st, nil)
}
