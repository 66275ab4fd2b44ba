package builtin

import (
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The approval subresource of a CertificateSigningRequest (what `kubectl
// certificate approve|deny` writes): an update there changes
// status.conditions and nothing else, as the real approval strategy does.

// PrepareApproval returns the CSR (its members other than metadata) that
// an update of /approval with obj stores in place of old: old with obj's
// status.conditions, whose missing lastUpdateTime is now and missing
// lastTransitionTime is that of the old condition of the same type and
// status (now when there is none). It also returns the real validation
// errors of the conditions.
func PrepareApproval(obj, old *jsonv.Value, now time.Time) (jsonv.Value, []FieldError) {
	next := old.Clone()
	if next.Kind != jsonv.Object {
		next = jsonv.NewObject()
	}
	conds := jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{}}
	if c := sub2(obj, "status").Get("conditions"); c != nil && c.Kind == jsonv.Array {
		conds = c.Clone()
	} else if unset(sub2(obj, "status"), "conditions") {
		conds = jsonv.Value{Kind: jsonv.Null}
	}
	stampCSRConditions(&conds, old, now)
	status := jsonv.NewObject()
	if st := present(&next, "status"); st != nil {
		status = st.Clone()
	}
	if conds.Kind == jsonv.Null {
		status.Delete("conditions")
	} else {
		status.Set("conditions", conds)
	}
	next.Set("status", status)
	return next, approvalErrors(&conds, old)
}

// stampCSRConditions fills each of a CSR's conditions' missing
// lastUpdateTime with now and missing lastTransitionTime with that of old's
// condition of the same type and status (now when there is none); old is
// the stored CSR's members other than metadata.
func stampCSRConditions(conds, old *jsonv.Value, now time.Time) {
	stamp := jsonv.NewString(now.UTC().Format(time.RFC3339))
	for i := range conds.Arr {
		c := &conds.Arr[i]
		if c.Kind != jsonv.Object {
			continue
		}
		if empty(c, "lastUpdateTime") {
			c.Set("lastUpdateTime", stamp)
		}
		if empty(c, "lastTransitionTime") {
			c.Set("lastTransitionTime", previousTransition(old, str(c, "type"), str(c, "status"), stamp))
		}
	}
}

// previousTransition is the lastTransitionTime of old's condition of this
// type and status, or now.
func previousTransition(old *jsonv.Value, typ, status string, now jsonv.Value) jsonv.Value {
	t := now
	found := false
	each(sub2(old, "status"), "conditions", func(c *jsonv.Value) {
		if !found && str(c, "type") == typ && str(c, "status") == status && !empty(c, "lastTransitionTime") {
			t, found = *c.Get("lastTransitionTime"), true
		}
	})
	return t
}

// approvalErrors checks a CSR's new conditions as the real validation of
// an approval update does.
func approvalErrors(conds, old *jsonv.Value) []FieldError {
	v := &validator{}
	oldCount := map[string]int{}
	each(sub2(old, "status"), "conditions", func(c *jsonv.Value) { oldCount[str(c, "type")]++ })
	seen := map[string]bool{}
	newCount := map[string]int{}
	for i := range conds.Arr {
		c := &conds.Arr[i]
		path := "status.conditions[" + strconv.Itoa(i) + "]"
		typ, status := str(c, "type"), str(c, "status")
		newCount[typ]++
		if typ == "" && !(oldCount[""] > 0) {
			v.required(path+".type", "")
		}
		trueOnly := typ == "Approved" || typ == "Denied" || typ == "Failed"
		switch {
		case status == "":
			v.required(path+".status", "")
		case trueOnly && status != "True":
			v.notSupported(path+".status", status, "True")
		case !trueOnly && status != "True" && status != "False" && status != "Unknown":
			v.notSupported(path+".status", status, "False", "True", "Unknown")
		}
		if seen[typ] && !hasDuplicates(old) {
			v.duplicate(path+".type", typ)
		}
		seen[typ] = true
	}
	for _, t := range []string{"Approved", "Denied", "Failed"} {
		if newCount[t] < oldCount[t] {
			v.forbidden("status.conditions", "updates may not remove a condition of type "+strconv.Quote(t))
		}
	}
	if newCount["Approved"] > 0 && newCount["Denied"] > 0 && !(oldCount["Approved"] > 0 && oldCount["Denied"] > 0) {
		v.invalid("status.conditions", `{conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]}`,
			"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`")
	}
	return v.errs
}

// hasDuplicates reports a stored CSR that already has two conditions of
// one type (kept for compatibility, as the real server allows).
func hasDuplicates(old *jsonv.Value) bool {
	seen, dup := map[string]bool{}, false
	each(sub2(old, "status"), "conditions", func(c *jsonv.Value) {
		dup = dup || seen[str(c, "type")]
		seen[str(c, "type")] = true
	})
	return dup
}
