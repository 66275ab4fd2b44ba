package api

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

// The values of a condition's status.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// findCondition returns the first of conds that match accepts, or nil. It
// points into conds, so the condition found can be changed in place.
func findCondition[C any](conds []C, match func(*C) bool) *C {
	for i := range conds {
		if match(&conds[i]) {
			return &conds[i]
		}
	}
	return nil
}
