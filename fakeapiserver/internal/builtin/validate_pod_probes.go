package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The rules of a container's probes and restart policy that depend on
// the kind of container: a plain init container (one without
// restartPolicy Always) may have no probe; a sidecar's and a regular
// container's are checked, with the rules of each probe kind.

// probeKinds are a container's probes in the real validator's order.
var probeKinds = []string{"livenessProbe", "readinessProbe", "startupProbe"}

// containerProbes checks container c's probes; init says whether it is
// an init container.
func (v *validator) containerProbes(p string, c *jsonv.Value, init bool) {
	plain := init && str(c, "restartPolicy") != "Always"
	for _, kind := range probeKinds {
		pr := present(c, kind)
		if pr == nil {
			continue
		}
		path := p + "." + kind
		if plain {
			v.forbidden(path, "may not be set for init containers without restartPolicy=Always")
			continue
		}
		v.probe(path, pr)
		switch kind {
		case "livenessProbe", "startupProbe":
			if n, _ := integer(pr, "successThreshold"); n != 1 {
				v.add(invalidNumber(path+".successThreshold", n, "must be 1"))
			}
		case "readinessProbe":
			if n, ok := integer(pr, "terminationGracePeriodSeconds"); ok {
				v.add(invalidNumber(path+".terminationGracePeriodSeconds", n, "must not be set for readinessProbes"))
			}
		}
	}
}

// probeGracePeriod checks a probe's own termination grace period: when
// set, at least 1.
func (v *validator) probeGracePeriod(path string, p *jsonv.Value) {
	if n, ok := integer(p, "terminationGracePeriodSeconds"); ok && n <= 0 {
		v.add(invalidNumber(path+".terminationGracePeriodSeconds", n, "must be greater than 0"))
	}
}

// containerRestartPolicy checks a container's restartPolicy and
// restartPolicyRules (ContainerRestartRules and
// RestartAllContainersOnContainerExits are on in 1.37). An init
// container without a policy may have no rules, and its rules are then
// not checked further.
func (v *validator) containerRestartPolicy(p string, c *jsonv.Value, init bool) {
	policy := c.Get("restartPolicy")
	hasPolicy := policy != nil && policy.Kind != jsonv.Null
	rules := items(c, "restartPolicyRules")
	switch {
	case !hasPolicy && len(rules) == 0:
		return
	case !hasPolicy:
		v.required(p+".restartPolicy", "must specify restartPolicy when restart rules are used")
		if init {
			return
		}
	default:
		switch s := str(c, "restartPolicy"); s {
		case "Always", "Never", "OnFailure":
		default:
			v.notSupported(p+".restartPolicy", s, "Always", "Never", "OnFailure")
		}
	}
	if len(rules) > 20 {
		v.tooMany(p+".restartPolicyRules", len(rules), 20)
	}
	for i, r := range rules {
		rp := index(p+".restartPolicyRules", i)
		switch a := str(r, "action"); a {
		case "Restart", "RestartAllContainers":
		default:
			v.notSupported(rp+".action", a, "Restart", "RestartAllContainers")
		}
		codes := present(r, "exitCodes")
		if codes == nil {
			v.required(rp+".exitCodes", "must be specified")
			continue
		}
		switch op := str(codes, "operator"); op {
		case "In", "NotIn":
		default:
			v.notSupported(rp+".exitCodes.operator", op, "In", "NotIn")
		}
		if vals := items(codes, "values"); len(vals) > 255 {
			v.tooMany(rp+".exitCodes.values", len(vals), 255)
		}
	}
}

// hostPortConflicts reports a host port (by protocol, host IP and port)
// that an earlier port of containers already takes. The real validator
// checks each init container alone and names it index 0 of path.
func (v *validator) hostPortConflicts(path string, containers []*jsonv.Value) {
	seen := map[string]bool{}
	for ci, c := range containers {
		for pi, port := range items(c, "ports") {
			hp, _ := integer(port, "hostPort")
			if hp == 0 {
				continue
			}
			k := str(port, "protocol") + "/" + str(port, "hostIP") + "/" + strconv.FormatInt(hp, 10)
			if seen[k] {
				v.duplicate(index(index(path, ci)+".ports", pi)+".hostPort", k)
				continue
			}
			seen[k] = true
		}
	}
}
