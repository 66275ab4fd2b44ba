package api

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

// The values of a condition's status.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)
