package builtin

import (
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// deviceTaintRuleMaxConditions is the most conditions a DeviceTaintRule's
// status may hold.
const deviceTaintRuleMaxConditions = 8

// deviceTaintRuleStatus checks a DeviceTaintRule's new status as the real
// ValidateDeviceTaintRuleStatusUpdate does: its conditions as
// metav1.Conditions, at most 8 of them.
func deviceTaintRuleStatus(v *validator, _ *meta.ObjectMeta, obj, _ *jsonv.Value) {
	conds := items(sub(obj, "status"), "conditions")
	v.conditions("status.conditions", conds)
	if len(conds) > deviceTaintRuleMaxConditions {
		v.tooMany("status.conditions", len(conds), deviceTaintRuleMaxConditions)
	}
}
