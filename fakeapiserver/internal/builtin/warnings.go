package builtin

import (
	"strconv"
	"strings"

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
	case "/ReplicationController", "apps/Deployment", "apps/ReplicaSet", "apps/DaemonSet", "batch/Job":
		return templateWarnings("spec.template", sub2(obj, "spec").Get("template"))
	case "apps/StatefulSet":
		return append(templateWarnings("spec.template", sub2(obj, "spec").Get("template")), statefulSetWarnings(obj)...)
	case "batch/CronJob":
		return templateWarnings("spec.jobTemplate.spec.template", sub(sub(sub2(obj, "spec"), "jobTemplate"), "spec").Get("template"))
	case "/Service":
		return serviceWarnings(present(obj, "spec"))
	}
	return nil
}

// serviceWarnings are the Service strategy's warnings about fields that
// do nothing for the Service's type or are deprecated (not those about
// the spelling of IP addresses).
func serviceWarnings(spec *jsonv.Value) []string {
	if spec == nil {
		return nil
	}
	var out []string
	typ := str(spec, "type")
	if typ == "" {
		typ = "ClusterIP"
	}
	externalIPs := !empty(spec, "externalIPs")
	headless := str(spec, "clusterIP") == "None"
	if headless {
		if str(spec, "loadBalancerIP") != "" {
			out = append(out, "spec.loadBalancerIP is ignored for headless services")
		}
		if externalIPs {
			out = append(out, "spec.externalIPs is ignored for headless services")
		}
		if a := str(spec, "sessionAffinity"); a != "" && a != "None" {
			out = append(out, "spec.SessionAffinity is ignored for headless services")
		}
	}
	if externalIPs && !headless && typ != "ExternalName" {
		out = append(out, "spec.externalIPs is deprecated and may no longer be implemented in some clusters")
	}
	if typ == "ExternalName" && externalIPs {
		out = append(out, `spec.externalIPs is ignored when spec.type is "ExternalName"`)
	}
	if typ != "ExternalName" && str(spec, "externalName") != "" {
		out = append(out, `spec.externalName is ignored when spec.type is not "ExternalName"`)
	}
	if str(spec, "trafficDistribution") == "PreferClose" {
		out = append(out, `spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`)
	}
	return out
}

// statefulSetWarnings are what the StatefulSet strategy says of a new or
// updated set besides its pod template.
func statefulSetWarnings(obj *jsonv.Value) []string {
	if n, ok := integer(sub2(obj, "spec"), "revisionHistoryLimit"); ok && n < 0 {
		return []string{"spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"}
	}
	return nil
}

// updateWarningKinds are the kinds whose strategies warn on update.
var updateWarningKinds = map[string]bool{
	"/PodTemplate": true, "/ReplicationController": true, "/Service": true,
	"apps/Deployment": true, "apps/ReplicaSet": true, "apps/DaemonSet": true, "apps/StatefulSet": true,
	"batch/Job": true, "batch/CronJob": true,
}

// WarnsOnUpdate reports whether an update of kind k can carry warnings
// (UpdateWarnings returns nil for every other kind).
func WarnsOnUpdate(k Kind) bool { return updateWarningKinds[k.Group+"/"+k.Kind] }

// UpdateWarnings returns the Warning headers the real server's strategies
// send for an update: obj is the updated object as it is stored, old the
// stored one, and specChanged whether the update changes the generation.
// A Service warns on every update, even a no-op, a StatefulSet about its
// revisionHistoryLimit likewise; the workloads warn about their pod
// template only when the generation changes (a DaemonSet: when its
// template does). A Pod never warns on update. The ReplicationController
// strategy looks at the stored template, not the new one, and so does
// UpdateWarnings.
func UpdateWarnings(k Kind, obj, old *jsonv.Value, specChanged bool) []string {
	if obj == nil || obj.Kind != jsonv.Object || !WarnsOnUpdate(k) {
		return nil
	}
	switch k.Group + "/" + k.Kind {
	case "/Service":
		return Warnings(k, obj)
	case "apps/StatefulSet":
		if specChanged {
			return Warnings(k, obj)
		}
		return statefulSetWarnings(obj)
	case "/ReplicationController":
		if specChanged && old != nil {
			return Warnings(k, old)
		}
	case "apps/DaemonSet":
		if old != nil && !jsonv.Equal(valueOr(sub2(obj, "spec").Get("template")), valueOr(sub2(old, "spec").Get("template"))) {
			return Warnings(k, obj)
		}
	default:
		if specChanged {
			return Warnings(k, obj)
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
				if seen[name] && hidesPrevious(e, name) {
					out = append(out, index(index(path+"."+list, ci)+".env", i)+": hides previous definition of "+strconv.Quote(name)+", which may be dropped when using apply")
				}
				seen[name] = true
			}
		}
	}
	out = append(out, portWarnings(path, spec)...)
	if n, ok := integer(spec, "terminationGracePeriodSeconds"); ok && n < 0 && template {
		out = append(out, path+".terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1")
	}
	return out
}

// hidesPrevious reports whether a second definition e of the variable
// name deserves the real server's warning: it comes from valueFrom, or
// its value does not build on the previous one through $(name) (X=$(X)
// alone counts as hiding it).
func hidesPrevious(e *jsonv.Value, name string) bool {
	ref := "$(" + name + ")"
	value := str(e, "value")
	return !unset(e, "valueFrom") || value == ref || !strings.Contains(value, ref)
}

// portWarnings are the warnings about the ports of all a pod's
// containers: one protocol and port defined twice (duplicate, overlapping
// or ambiguous by host port and IP), and a port name used twice.
func portWarnings(path string, spec *jsonv.Value) []string {
	type block struct {
		field, hostIP string
		hostPort      int64
	}
	var out []string
	byPort := map[string][]block{}
	names := map[string]string{}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for ci, c := range items(spec, list) {
			for i, port := range items(c, "ports") {
				f := index(index(path+"."+list, ci)+".ports", i)
				cp, _ := integer(port, "containerPort")
				hp, _ := integer(port, "hostPort")
				b := block{field: f, hostIP: str(port, "hostIP"), hostPort: hp}
				proto := str(port, "protocol")
				if proto == "" {
					// The warnings are computed on the object as sent;
					// the real server's, after defaulting.
					proto = "TCP"
				}
				k := strconv.FormatInt(cp, 10) + "/" + proto
				for _, o := range byPort[k] {
					switch {
					case b.hostIP == o.hostIP && b.hostPort == o.hostPort:
						out = append(out, f+": duplicate port definition with "+o.field)
					case b.hostPort == 0 || o.hostPort == 0:
						out = append(out, f+": overlapping port definition with "+o.field)
					case b.hostPort == o.hostPort && (b.hostIP == "") != (o.hostIP == ""):
						out = append(out, f+": dangerously ambiguous port definition with "+o.field)
					}
				}
				byPort[k] = append(byPort[k], b)
			}
		}
	}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		for ci, c := range items(spec, list) {
			for i, port := range items(c, "ports") {
				name := str(port, "name")
				if name == "" {
					continue
				}
				f := index(index(path+"."+list, ci)+".ports", i)
				if other, ok := names[name]; ok {
					out = append(out, f+": duplicate port name "+strconv.Quote(name)+" with "+other+", services and probes that select ports by name will use "+other)
				} else {
					names[name] = f
				}
			}
		}
	}
	return out
}
