package cliprint

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/meta"
)

// The columns kubectl prints for the built-in kinds a newcomer meets
// first. Every value is read from the decoded object with the small
// accessors at the end of this file, which treat a missing or mistyped
// field as absent: an object from a server is never trusted to have the
// right shape.

// row is one object being printed: its metadata, its decoded document and
// the time ages are measured at.
type row struct {
	meta *meta.ObjectMeta
	doc  map[string]any
	now  time.Time
}

// age is the object's AGE cell.
func (r row) age() string { return Age(r.meta.CreationTimestamp.Time, r.now) }

// kindColumns are the columns of one kind after NAME: the headers, the
// extra headers of -o wide, and the function that fills both.
type kindColumns struct {
	headers []string
	wide    []string
	cells   func(r row) (cells, wide []string)
}

// builtinColumns maps "group/Kind" to its columns.
var builtinColumns = map[string]kindColumns{
	"/Pod": {
		headers: []string{"READY", "STATUS", "RESTARTS", "AGE"},
		wide:    []string{"IP", "NODE", "NOMINATED NODE", "READINESS GATES"},
		cells:   podCells,
	},
	"apps/Deployment": {
		headers: []string{"READY", "UP-TO-DATE", "AVAILABLE", "AGE"},
		wide:    []string{"CONTAINERS", "IMAGES", "SELECTOR"},
		cells:   deploymentCells,
	},
	"/ConfigMap": {
		headers: []string{"DATA", "AGE"},
		cells: func(r row) ([]string, []string) {
			n := len(mapAt(r.doc, "data")) + len(mapAt(r.doc, "binaryData"))
			return []string{strconv.Itoa(n), r.age()}, nil
		},
	},
	"/Secret": {
		headers: []string{"TYPE", "DATA", "AGE"},
		cells: func(r row) ([]string, []string) {
			return []string{strAt(r.doc, "type"), strconv.Itoa(len(mapAt(r.doc, "data"))), r.age()}, nil
		},
	},
	"/Service": {
		headers: []string{"TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"},
		wide:    []string{"SELECTOR"},
		cells:   serviceCells,
	},
	"/Node": {
		headers: []string{"STATUS", "ROLES", "AGE", "VERSION"},
		wide:    []string{"INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"},
		cells:   nodeCells,
	},
	"/Namespace": {
		headers: []string{"STATUS", "AGE"},
		cells: func(r row) ([]string, []string) {
			return []string{strAt(r.doc, "status", "phase"), r.age()}, nil
		},
	},
}

// podCells fills READY, STATUS, RESTARTS and AGE the way kubectl reads a
// pod: the phase, overridden by the reason of an init container that has
// not finished, else by the last container's waiting or terminated reason,
// and "Terminating" once the pod is being deleted.
func podCells(r row) ([]string, []string) {
	containers := listAt(r.doc, "spec", "containers")
	reason := strAt(r.doc, "status", "phase")
	if s := strAt(r.doc, "status", "reason"); s != "" {
		reason = s
	}
	restarts, ready := int64(0), 0

	initializing := false
	inits := listAt(r.doc, "status", "initContainerStatuses")
	for i, c := range inits {
		restarts += intAt(c, "restartCount")
		term := mapAt(c, "state", "terminated")
		if term != nil && intAt(term, "exitCode") == 0 {
			continue // finished
		}
		initializing = true
		switch {
		case term != nil:
			reason = "Init:" + exitReason(term)
		case strAt(c, "state", "waiting", "reason") != "" && strAt(c, "state", "waiting", "reason") != "PodInitializing":
			reason = "Init:" + strAt(c, "state", "waiting", "reason")
		default:
			reason = "Init:" + strconv.Itoa(i) + "/" + strconv.Itoa(len(listAt(r.doc, "spec", "initContainers")))
		}
		break
	}
	if !initializing {
		running := false
		statuses := listAt(r.doc, "status", "containerStatuses")
		for i := len(statuses) - 1; i >= 0; i-- {
			c := statuses[i]
			restarts += intAt(c, "restartCount")
			waiting := strAt(c, "state", "waiting", "reason")
			term := mapAt(c, "state", "terminated")
			switch {
			case waiting != "":
				reason = waiting
			case term != nil:
				reason = exitReason(term)
			case boolAt(c, "ready") && mapAt(c, "state", "running") != nil:
				running = true
				ready++
			}
		}
		if reason == "Completed" && running {
			reason = "NotReady"
			if conditionStatus(r.doc, "Ready") == "True" {
				reason = "Running"
			}
		}
	}
	if r.meta.DeletionTimestamp != nil {
		reason = "Terminating"
		if strAt(r.doc, "status", "reason") == "NodeLost" {
			reason = "Unknown"
		}
	}
	cells := []string{
		strconv.Itoa(ready) + "/" + strconv.Itoa(len(containers)),
		orNone(reason),
		strconv.FormatInt(restarts, 10),
		r.age(),
	}
	gates := "<none>"
	if g := listAt(r.doc, "spec", "readinessGates"); len(g) > 0 {
		passed := 0
		for _, gate := range g {
			if conditionStatus(r.doc, strAt(gate, "conditionType")) == "True" {
				passed++
			}
		}
		gates = strconv.Itoa(passed) + "/" + strconv.Itoa(len(g))
	}
	wide := []string{
		orNone(strAt(r.doc, "status", "podIP")),
		orNone(strAt(r.doc, "spec", "nodeName")),
		orNone(strAt(r.doc, "status", "nominatedNodeName")),
		gates,
	}
	return cells, wide
}

// exitReason names how a container ended: its reason, else its signal or
// exit code.
func exitReason(term map[string]any) string {
	if s := strAt(term, "reason"); s != "" {
		return s
	}
	if sig := intAt(term, "signal"); sig != 0 {
		return "Signal:" + strconv.FormatInt(sig, 10)
	}
	return "ExitCode:" + strconv.FormatInt(intAt(term, "exitCode"), 10)
}

// conditionStatus returns the status of the condition of type typ in
// status.conditions, or "".
func conditionStatus(doc map[string]any, typ string) string {
	for _, c := range listAt(doc, "status", "conditions") {
		if strAt(c, "type") == typ {
			return strAt(c, "status")
		}
	}
	return ""
}

// deploymentCells fills READY (ready of desired replicas), UP-TO-DATE,
// AVAILABLE and AGE; wide adds the containers, images and selector.
func deploymentCells(r row) ([]string, []string) {
	desired := int64(1)
	if _, ok := at(r.doc, "spec", "replicas"); ok {
		desired = intAt(r.doc, "spec", "replicas")
	}
	cells := []string{
		strconv.FormatInt(intAt(r.doc, "status", "readyReplicas"), 10) + "/" + strconv.FormatInt(desired, 10),
		strconv.FormatInt(intAt(r.doc, "status", "updatedReplicas"), 10),
		strconv.FormatInt(intAt(r.doc, "status", "availableReplicas"), 10),
		r.age(),
	}
	var names, images []string
	for _, c := range listAt(r.doc, "spec", "template", "spec", "containers") {
		names = append(names, strAt(c, "name"))
		images = append(images, strAt(c, "image"))
	}
	wide := []string{
		orNone(strings.Join(names, ",")),
		orNone(strings.Join(images, ",")),
		labelSelector(mapAt(r.doc, "spec", "selector")),
	}
	return cells, wide
}

// labelSelector renders a LabelSelector (matchLabels and
// matchExpressions) in the selector syntax.
func labelSelector(sel map[string]any) string {
	var parts []string
	labels := mapAt(sel, "matchLabels")
	for _, k := range sortedKeys(labels) {
		parts = append(parts, k+"="+scalar(labels[k]))
	}
	for _, e := range listAt(sel, "matchExpressions") {
		key := strAt(e, "key")
		var vals []string
		for _, v := range listAt(e, "values") {
			vals = append(vals, scalar(v))
		}
		switch strAt(e, "operator") {
		case "In":
			parts = append(parts, key+" in ("+strings.Join(vals, ",")+")")
		case "NotIn":
			parts = append(parts, key+" notin ("+strings.Join(vals, ",")+")")
		case "Exists":
			parts = append(parts, key)
		case "DoesNotExist":
			parts = append(parts, "!"+key)
		}
	}
	return orNone(strings.Join(parts, ","))
}

// serviceCells fills TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S) and AGE; wide
// adds the selector.
func serviceCells(r row) ([]string, []string) {
	typ := strAt(r.doc, "spec", "type")
	if typ == "" {
		typ = "ClusterIP"
	}
	var external []string
	for _, ip := range listAt(r.doc, "spec", "externalIPs") {
		external = append(external, scalar(ip))
	}
	ext := ""
	switch typ {
	case "LoadBalancer":
		var lb []string
		for _, in := range listAt(r.doc, "status", "loadBalancer", "ingress") {
			if ip := strAt(in, "ip"); ip != "" {
				lb = append(lb, ip)
			} else if h := strAt(in, "hostname"); h != "" {
				lb = append(lb, h)
			}
		}
		all := append(lb, external...)
		ext = strings.Join(all, ",")
		if ext == "" {
			ext = "<pending>"
		}
	case "ExternalName":
		ext = strAt(r.doc, "spec", "externalName")
	default:
		ext = strings.Join(external, ",")
	}
	var ports []string
	for _, p := range listAt(r.doc, "spec", "ports") {
		proto := strAt(p, "protocol")
		if proto == "" {
			proto = "TCP"
		}
		s := strconv.FormatInt(intAt(p, "port"), 10)
		if np := intAt(p, "nodePort"); np != 0 {
			s += ":" + strconv.FormatInt(np, 10)
		}
		ports = append(ports, s+"/"+proto)
	}
	sel := mapAt(r.doc, "spec", "selector")
	var selParts []string
	for _, k := range sortedKeys(sel) {
		selParts = append(selParts, k+"="+scalar(sel[k]))
	}
	cells := []string{
		typ,
		orNone(strAt(r.doc, "spec", "clusterIP")),
		orNone(ext),
		orNone(strings.Join(ports, ",")),
		r.age(),
	}
	return cells, []string{orNone(strings.Join(selParts, ","))}
}

// nodeCells fills STATUS (the Ready condition, plus SchedulingDisabled
// for a cordoned node), ROLES (from the node-role.kubernetes.io/ labels),
// AGE and VERSION; wide adds addresses and what the node runs.
func nodeCells(r row) ([]string, []string) {
	status := "Unknown"
	switch conditionStatus(r.doc, "Ready") {
	case "True":
		status = "Ready"
	case "False":
		status = "NotReady"
	}
	if boolAt(r.doc, "spec", "unschedulable") {
		status += ",SchedulingDisabled"
	}
	var roles []string
	for k, v := range r.meta.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/") && len(k) > len("node-role.kubernetes.io/"):
			roles = append(roles, strings.TrimPrefix(k, "node-role.kubernetes.io/"))
		case k == "kubernetes.io/role" && v != "":
			roles = append(roles, v)
		}
	}
	sort.Strings(roles)
	roles = compactStrings(roles)
	address := func(typ string) string {
		for _, a := range listAt(r.doc, "status", "addresses") {
			if strAt(a, "type") == typ {
				return strAt(a, "address")
			}
		}
		return ""
	}
	unknown := func(s string) string {
		if s == "" {
			return "<unknown>"
		}
		return s
	}
	cells := []string{status, orNone(strings.Join(roles, ",")), r.age(), strAt(r.doc, "status", "nodeInfo", "kubeletVersion")}
	wide := []string{
		orNone(address("InternalIP")),
		orNone(address("ExternalIP")),
		unknown(strAt(r.doc, "status", "nodeInfo", "osImage")),
		unknown(strAt(r.doc, "status", "nodeInfo", "kernelVersion")),
		unknown(strAt(r.doc, "status", "nodeInfo", "containerRuntimeVersion")),
	}
	return cells, wide
}

// compactStrings drops adjacent duplicates of a sorted slice.
func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// orNone returns s, or "<none>" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// at walks object members from v.
func at(v any, path ...string) (any, bool) {
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// strAt returns the string at path, or "".
func strAt(v any, path ...string) string {
	x, _ := at(v, path...)
	s, _ := x.(string)
	return s
}

// intAt returns the integer at path, or 0.
func intAt(v any, path ...string) int64 {
	x, _ := at(v, path...)
	n, ok := x.(json.Number)
	if !ok {
		return 0
	}
	i, err := n.Int64()
	if err != nil {
		return 0
	}
	return i
}

// boolAt returns the boolean at path, or false.
func boolAt(v any, path ...string) bool {
	x, _ := at(v, path...)
	b, _ := x.(bool)
	return b
}

// listAt returns the array at path, or nil.
func listAt(v any, path ...string) []any {
	x, _ := at(v, path...)
	a, _ := x.([]any)
	return a
}

// mapAt returns the object at path, or nil.
func mapAt(v any, path ...string) map[string]any {
	x, _ := at(v, path...)
	m, _ := x.(map[string]any)
	return m
}
