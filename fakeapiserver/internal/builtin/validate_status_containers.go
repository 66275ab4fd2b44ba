package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// A Pod's container statuses may leave the terminated state only when
// the container is to be restarted: the real ValidateContainerStateTransition
// with the v1.37 gates (ContainerRestartRules, RestartAllContainersOnContainerExits).

// containerTransitions reports each stored terminated status of the
// containers in the spec's list ("containers", "initContainers"; by its
// index in the stored statuses at p) that the write moves to another
// state although the container is not restarted. An ephemeral container
// ("ephemeralContainers") is never restarted.
func (v *validator) containerTransitions(p string, statuses, oldStatuses []*jsonv.Value, spec *jsonv.Value, list string) {
	ephemeral := list == "ephemeralContainers"
	if !ephemeral && allContainersCouldRestart(spec) {
		return
	}
	containers := map[string]*jsonv.Value{}
	for _, c := range items(spec, list) {
		containers[str(c, "name")] = c
	}
	for i, old := range oldStatuses {
		terminated := present(sub(old, "state"), "terminated")
		if terminated == nil {
			continue
		}
		code, _ := integer(terminated, "exitCode")
		for _, s := range statuses {
			if str(s, "name") != str(old, "name") || present(sub(s, "state"), "terminated") != nil {
				continue
			}
			c := containers[str(old, "name")]
			if ephemeral || c == nil || !containerRestarts(c, str(spec, "restartPolicy"), code) {
				v.forbidden(index(p, i)+".state", "may not be transitioned to non-terminated state")
			}
			break
		}
	}
}

// allContainersCouldRestart reports a pod with a container rule that
// restarts every container.
func allContainersCouldRestart(spec *jsonv.Value) bool {
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range items(spec, list) {
			for _, r := range items(c, "restartPolicyRules") {
				if str(r, "action") == "RestartAllContainers" {
					return true
				}
			}
		}
	}
	return false
}

// containerRestarts reports whether the kubelet restarts container c
// after it exited with code: its first rule matching the code, else its
// own restart policy, else the pod's.
func containerRestarts(c *jsonv.Value, podPolicy string, code int64) bool {
	if policy := str(c, "restartPolicy"); policy != "" {
		for _, r := range items(c, "restartPolicyRules") {
			codes := present(r, "exitCodes")
			if codes == nil {
				continue
			}
			matched := false
			if vals := codes.Get("values"); vals != nil && vals.Kind == jsonv.Array {
				for _, x := range vals.Arr {
					if n, err := strconv.ParseInt(x.Str, 10, 64); err == nil && n == code {
						matched = true
					}
				}
			}
			op := str(codes, "operator")
			if (op == "In" && matched) || (op == "NotIn" && !matched) {
				if a := str(r, "action"); a == "Restart" || a == "RestartAllContainers" {
					return true
				}
				break
			}
		}
		switch policy {
		case "Always":
			return true
		case "OnFailure":
			return code != 0
		case "Never":
			return false
		}
	}
	switch podPolicy {
	case "OnFailure":
		return code != 0
	case "Never":
		return false
	}
	return true
}
