package builtin

import (
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// deprecatedVolumes are the volume sources the real server warns about,
// with its words.
var deprecatedVolumes = []struct{ key, msg string }{
	{"photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
	{"gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"},
	{"scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
	{"flocker", "deprecated in v1.22, non-functional in v1.25+"},
	{"storageos", "deprecated in v1.22, non-functional in v1.25+"},
	{"quobyte", "deprecated in v1.22, non-functional in v1.25+"},
	{"glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
	{"cephfs", "deprecated in v1.28, non-functional in v1.31+"},
	{"rbd", "deprecated in v1.28, non-functional in v1.31+"},
}

// Warnings returns the Warning headers the real server's strategies send
// for a new or updated object (deprecated volume sources, a negative grace
// period, a Service's externalIPs, an environment variable defined twice),
// for the object as the client sent it (before Decoded).
func Warnings(k Kind, obj *jsonv.Value) []string {
	if obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	switch k.Group + "/" + k.Kind {
	case "/Pod":
		return podWarnings("spec", present(obj, "spec"), false)
	case "/PodTemplate":
		return templateWarnings("template", present(obj, "template"))
	case "/ReplicationController", "apps/Deployment", "apps/ReplicaSet", "apps/DaemonSet", "apps/StatefulSet", "batch/Job":
		return templateWarnings("spec.template", sub2(obj, "spec").Get("template"))
	case "batch/CronJob":
		return templateWarnings("spec.jobTemplate.spec.template", sub(sub(sub2(obj, "spec"), "jobTemplate"), "spec").Get("template"))
	case "/Service":
		if spec := present(obj, "spec"); spec != nil && !empty(spec, "externalIPs") {
			return []string{"spec.externalIPs is deprecated and may no longer be implemented in some clusters"}
		}
	}
	return nil
}

func templateWarnings(path string, t *jsonv.Value) []string {
	if t == nil || t.Kind != jsonv.Object {
		return nil
	}
	return podWarnings(path+".spec", present(t, "spec"), true)
}

// podWarnings are a pod spec's warnings, under path. The real server
// computes them after defaulting, which turns a Pod's (not a template's)
// negative grace period into 1: only templates warn about it.
func podWarnings(path string, spec *jsonv.Value, template bool) []string {
	if spec == nil {
		return nil
	}
	var out []string
	for i, v := range items(spec, "volumes") {
		for _, d := range deprecatedVolumes {
			if !unset(v, d.key) {
				out = append(out, index(path+".volumes", i)+"."+d.key+": "+d.msg)
			}
		}
	}
	for _, list := range []string{"initContainers", "containers"} {
		for ci, c := range items(spec, list) {
			seen := map[string]bool{}
			for i, e := range items(c, "env") {
				name := str(e, "name")
				if seen[name] {
					out = append(out, index(index(path+"."+list, ci)+".env", i)+": hides previous definition of "+strconv.Quote(name)+", which may be dropped when using apply")
				}
				seen[name] = true
			}
		}
	}
	if n, ok := integer(spec, "terminationGracePeriodSeconds"); ok && n < 0 && template {
		out = append(out, path+".terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1")
	}
	return out
}
