package table

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// hpaCells: NAME, REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS, AGE, as
// the real printer shows a HorizontalPodAutoscaler (TARGETS: the first two
// metrics, current/target, then "+ N more...").
func hpaCells(o jsonv.Value, now time.Time) []any {
	minPods := "<unset>"
	if get(o, "spec", "minReplicas") != nil {
		minPods = fmt.Sprint(num(o, "spec", "minReplicas"))
	}
	ref := str(o, "spec", "scaleTargetRef", "kind") + "/" + str(o, "spec", "scaleTargetRef", "name")
	return []any{name(o), ref, hpaTargets(o), minPods, num(o, "spec", "maxReplicas"), num(o, "status", "currentReplicas"),
		age(str(o, "metadata", "creationTimestamp"), now)}
}

// hpaTargets formats an HPA's metrics against its current ones. An
// autoscaling/v1 object shows its CPU target.
func hpaTargets(o jsonv.Value) string {
	specs, statuses := arr(o, "spec", "metrics"), arr(o, "status", "currentMetrics")
	if specs == nil && get(o, "spec", "targetCPUUtilizationPercentage") != nil {
		current := "<unknown>"
		if get(o, "status", "currentCPUUtilizationPercentage") != nil {
			current = fmt.Sprintf("%d%%", num(o, "status", "currentCPUUtilizationPercentage"))
		}
		return fmt.Sprintf("cpu: %s/%d%%", current, num(o, "spec", "targetCPUUtilizationPercentage"))
	}
	if len(specs) == 0 {
		return "<none>"
	}
	status := func(i int, key string) *jsonv.Value {
		if i < len(statuses) {
			return get(statuses[i], key)
		}
		return nil
	}
	var list []string
	for i, spec := range specs {
		typ := str(spec, "type")
		key := map[string]string{"External": "external", "Pods": "pods", "Object": "object", "Resource": "resource", "ContainerResource": "containerResource"}[typ]
		src, st := get(spec, key), status(i, key)
		if key == "" || src == nil {
			list = append(list, "<unknown type>")
			continue
		}
		current := "<unknown>"
		switch {
		case (typ == "External" || typ == "Object") && get(*src, "target", "averageValue") != nil:
			if st != nil && get(*st, "current", "averageValue") != nil {
				current = quantity(*st, "current", "averageValue")
			}
			list = append(list, fmt.Sprintf("%s/%s (avg)", current, quantity(*src, "target", "averageValue")))
		case typ == "External" || typ == "Object":
			if st != nil {
				current = quantity(*st, "current", "value")
			}
			list = append(list, fmt.Sprintf("%s/%s", current, quantity(*src, "target", "value")))
		case typ == "Pods":
			if st != nil {
				current = quantity(*st, "current", "averageValue")
			}
			list = append(list, fmt.Sprintf("%s/%s", current, quantity(*src, "target", "averageValue")))
		case get(*src, "target", "averageValue") != nil:
			if st != nil {
				current = quantity(*st, "current", "averageValue")
			}
			list = append(list, fmt.Sprintf("%s: %s/%s", str(*src, "name"), current, quantity(*src, "target", "averageValue")))
		default:
			if st != nil && get(*st, "current", "averageUtilization") != nil {
				current = fmt.Sprintf("%d%%", num(*st, "current", "averageUtilization"))
			}
			target := "<auto>"
			if get(*src, "target", "averageUtilization") != nil {
				target = fmt.Sprintf("%d%%", num(*src, "target", "averageUtilization"))
			}
			list = append(list, fmt.Sprintf("%s: %s/%s", str(*src, "name"), current, target))
		}
	}
	if len(list) > 2 {
		return strings.Join(list[:2], ", ") + fmt.Sprintf(" + %d more...", len(list)-2)
	}
	return strings.Join(list, ", ")
}
