package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The real server's bounds on an HPA's scaling rules.
const (
	hpaMaxStabilizationWindowSeconds = 3600
	hpaMaxPeriodSeconds              = 1800
)

// hpaBehavior checks spec.behavior of an autoscaling/v2 HPA as the real
// validator does: each direction given needs at least one policy (an
// empty list is given, and the defaulter keeps it), a stabilization
// window within 0..3600 s, a known selectPolicy, and policies of a known
// type with a positive value and a period within 1..1800 s.
func (v *validator) hpaBehavior(spec *jsonv.Value) {
	b := present(spec, "behavior")
	if b == nil {
		return
	}
	for _, dir := range []string{"scaleUp", "scaleDown"} {
		rules := present(b, dir)
		if rules == nil {
			continue
		}
		p := "spec.behavior." + dir
		if w, ok := integer(rules, "stabilizationWindowSeconds"); ok {
			if w < 0 {
				v.invalidRaw(p+".stabilizationWindowSeconds", strconv.FormatInt(w, 10), "must be greater than or equal to zero")
			}
			if w > hpaMaxStabilizationWindowSeconds {
				v.invalidRaw(p+".stabilizationWindowSeconds", strconv.FormatInt(w, 10), "must be less than or equal to "+strconv.Itoa(hpaMaxStabilizationWindowSeconds))
			}
		}
		if sp := rules.Get("selectPolicy"); sp != nil && sp.Kind == jsonv.String {
			switch sp.Str {
			case "Max", "Min", "Disabled":
			default:
				v.notSupported(p+".selectPolicy", sp.Str, "Disabled", "Max", "Min")
			}
		}
		policies := items(rules, "policies")
		if len(policies) == 0 {
			v.required(p+".policies", "must specify at least one Policy")
		}
		for i, pol := range policies {
			pp := index(p+".policies", i)
			if t := str(pol, "type"); t != "Pods" && t != "Percent" {
				v.notSupported(pp+".type", t, "Percent", "Pods")
			}
			if n, _ := integer(pol, "value"); n <= 0 {
				v.invalidRaw(pp+".value", strconv.FormatInt(n, 10), "must be greater than zero")
			}
			n, _ := integer(pol, "periodSeconds")
			if n <= 0 {
				v.invalidRaw(pp+".periodSeconds", strconv.FormatInt(n, 10), "must be greater than zero")
			}
			if n > hpaMaxPeriodSeconds {
				v.invalidRaw(pp+".periodSeconds", strconv.FormatInt(n, 10), "must be less than or equal to "+strconv.Itoa(hpaMaxPeriodSeconds))
			}
		}
	}
}
