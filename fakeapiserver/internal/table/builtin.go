package table

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

type cellFunc = func(obj jsonv.Value, now time.Time) []any

// builtinCells holds the cells of the built-in resources that have their
// own printer, by "group/resource"; their columns are builtinColumns'.
var builtinCells = map[string]cellFunc{
	"/configmaps": func(o jsonv.Value, now time.Time) []any {
		return []any{name(o), len(members(o, "data")) + len(members(o, "binaryData")), age(str(o, "metadata", "creationTimestamp"), now)}
	},
	"/secrets": func(o jsonv.Value, now time.Time) []any {
		return []any{name(o), str(o, "type"), len(members(o, "data")) + len(members(o, "stringData")), age(str(o, "metadata", "creationTimestamp"), now)}
	},
	"/serviceaccounts": func(o jsonv.Value, now time.Time) []any {
		return []any{name(o), age(str(o, "metadata", "creationTimestamp"), now)}
	},
	"/namespaces": func(o jsonv.Value, now time.Time) []any {
		return []any{name(o), str(o, "status", "phase"), age(str(o, "metadata", "creationTimestamp"), now)}
	},
	"/services":                   serviceCells,
	"/pods":                       podCells,
	"/nodes":                      nodeCells,
	"/events":                     eventCells,
	"events.k8s.io/events":        eventCells,
	"/persistentvolumes":          pvCells,
	"/persistentvolumeclaims":     pvcCells,
	"apps/deployments":            deploymentCells,
	"apps/replicasets":            replicaSetCells,
	"apps/statefulsets":           statefulSetCells,
	"apps/daemonsets":             daemonSetCells,
	"batch/jobs":                  jobCells,
	"batch/cronjobs":              cronJobCells,
	"networking.k8s.io/ingresses": ingressCells,
	"coordination.k8s.io/leases": func(o jsonv.Value, now time.Time) []any {
		return []any{name(o), str(o, "spec", "holderIdentity"), age(str(o, "metadata", "creationTimestamp"), now)}
	},
	"apiextensions.k8s.io/customresourcedefinitions": crdCells,
}

// For returns the printer of a built-in resource ("" for the core group,
// plural resource name): its own columns and cells for the resources
// listed in the fidelity notes, the default Name / Created At table for
// the others.
func For(group, resource string) Printer {
	key := group + "/" + resource
	cells, ok := builtinCells[key]
	if !ok {
		return Printer{}
	}
	return Printer{columns: builtinColumns[key], cells: cells}
}

func serviceCells(o jsonv.Value, now time.Time) []any {
	typ := str(o, "spec", "type")
	if typ == "" {
		typ = "ClusterIP"
	}
	clusterIP := orNone(str(o, "spec", "clusterIP"))
	var external []string
	for _, ip := range arr(o, "spec", "externalIPs") {
		external = append(external, ip.Str)
	}
	var externalIP string
	switch typ {
	case "ClusterIP", "NodePort":
		externalIP = orNone(strings.Join(external, ","))
	case "LoadBalancer":
		var lb []string
		for _, in := range arr(o, "status", "loadBalancer", "ingress") {
			if ip := str(in, "ip"); ip != "" {
				lb = append(lb, ip)
			} else if h := str(in, "hostname"); h != "" {
				lb = append(lb, h)
			}
		}
		switch all := append(external, lb...); {
		case len(all) > 0:
			externalIP = strings.Join(all, ",")
		default:
			externalIP = "<pending>"
		}
	case "ExternalName":
		externalIP = str(o, "spec", "externalName")
	default:
		externalIP = "<unknown>"
	}
	var ports []string
	for _, p := range arr(o, "spec", "ports") {
		proto := str(p, "protocol")
		if proto == "" {
			proto = "TCP"
		}
		if np := num(p, "nodePort"); np > 0 {
			ports = append(ports, fmt.Sprintf("%d:%d/%s", num(p, "port"), np, proto))
		} else {
			ports = append(ports, fmt.Sprintf("%d/%s", num(p, "port"), proto))
		}
	}
	return []any{name(o), typ, clusterIP, externalIP, orNone(strings.Join(ports, ",")),
		age(str(o, "metadata", "creationTimestamp"), now), orNone(labelString(members(o, "spec", "selector")))}
}

func podCells(o jsonv.Value, now time.Time) []any {
	containers := arr(o, "spec", "containers")
	restarts, ready := int64(0), 0
	reason := str(o, "status", "phase")
	if r := str(o, "status", "reason"); r != "" {
		reason = r
	}
	var lastRestart time.Time
	noteRestart := func(cs jsonv.Value) {
		restarts += num(cs, "restartCount")
		if t, err := time.Parse(time.RFC3339, str(cs, "lastState", "terminated", "finishedAt")); err == nil && t.After(lastRestart) {
			lastRestart = t
		}
	}
	initializing := false
	inits := arr(o, "spec", "initContainers")
	for i, cs := range arr(o, "status", "initContainerStatuses") {
		noteRestart(cs)
		switch {
		case get(cs, "state", "terminated") != nil && num(cs, "state", "terminated", "exitCode") == 0:
			continue
		case get(cs, "state", "terminated") != nil:
			if r := str(cs, "state", "terminated", "reason"); r != "" {
				reason = "Init:" + r
			} else if s := num(cs, "state", "terminated", "signal"); s != 0 {
				reason = fmt.Sprintf("Init:Signal:%d", s)
			} else {
				reason = fmt.Sprintf("Init:ExitCode:%d", num(cs, "state", "terminated", "exitCode"))
			}
		case get(cs, "state", "waiting") != nil && str(cs, "state", "waiting", "reason") != "" && str(cs, "state", "waiting", "reason") != "PodInitializing":
			reason = "Init:" + str(cs, "state", "waiting", "reason")
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(inits))
		}
		initializing = true
		break
	}
	if !initializing {
		restarts = 0
		lastRestart = time.Time{}
		hasRunning := false
		statuses := arr(o, "status", "containerStatuses")
		for i := len(statuses) - 1; i >= 0; i-- {
			cs := statuses[i]
			noteRestart(cs)
			switch {
			case str(cs, "state", "waiting", "reason") != "":
				reason = str(cs, "state", "waiting", "reason")
			case str(cs, "state", "terminated", "reason") != "":
				reason = str(cs, "state", "terminated", "reason")
			case get(cs, "state", "terminated") != nil:
				if s := num(cs, "state", "terminated", "signal"); s != 0 {
					reason = fmt.Sprintf("Signal:%d", s)
				} else {
					reason = fmt.Sprintf("ExitCode:%d", num(cs, "state", "terminated", "exitCode"))
				}
			case boolean(cs, "ready") && get(cs, "state", "running") != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" && hasRunning {
			reason = "NotReady"
			for _, c := range arr(o, "status", "conditions") {
				if str(c, "type") == "Ready" && str(c, "status") == "True" {
					reason = "Running"
				}
			}
		}
	}
	phase := str(o, "status", "phase")
	if str(o, "metadata", "deletionTimestamp") != "" {
		if str(o, "status", "reason") == "NodeLost" {
			reason = "Unknown"
		} else if phase != "Succeeded" && phase != "Failed" {
			reason = "Terminating"
		}
	}
	restartCell := strconv.FormatInt(restarts, 10)
	if restarts != 0 && !lastRestart.IsZero() {
		restartCell = fmt.Sprintf("%d (%s ago)", restarts, HumanDuration(now.Sub(lastRestart)))
	}
	ip := "<none>"
	if ips := arr(o, "status", "podIPs"); len(ips) > 0 {
		ip = str(ips[0], "ip")
	} else if s := str(o, "status", "podIP"); s != "" {
		ip = s
	}
	gates := "<none>"
	if gs := arr(o, "spec", "readinessGates"); len(gs) > 0 {
		trueCount := 0
		for _, g := range gs {
			for _, c := range arr(o, "status", "conditions") {
				if str(c, "type") == str(g, "conditionType") && str(c, "status") == "True" {
					trueCount++
				}
			}
		}
		gates = fmt.Sprintf("%d/%d", trueCount, len(gs))
	}
	return []any{name(o), fmt.Sprintf("%d/%d", ready, len(containers)), reason, restartCell,
		age(str(o, "metadata", "creationTimestamp"), now), ip, orNone(str(o, "spec", "nodeName")),
		orNone(str(o, "status", "nominatedNodeName")), gates}
}

func nodeCells(o jsonv.Value, now time.Time) []any {
	status := "Unknown"
	for _, c := range arr(o, "status", "conditions") {
		if str(c, "type") == "Ready" {
			switch str(c, "status") {
			case "True":
				status = "Ready"
			case "False":
				status = "NotReady"
			}
		}
	}
	if boolean(o, "spec", "unschedulable") {
		status += ",SchedulingDisabled"
	}
	var roles []string
	for _, l := range members(o, "metadata", "labels") {
		switch {
		case strings.HasPrefix(l.Key, "node-role.kubernetes.io/"):
			if r := strings.TrimPrefix(l.Key, "node-role.kubernetes.io/"); r != "" {
				roles = append(roles, r)
			}
		case l.Key == "kubernetes.io/role" && l.Value.Str != "":
			roles = append(roles, l.Value.Str)
		}
	}
	slices.Sort(roles)
	address := func(typ string) string {
		for _, a := range arr(o, "status", "addresses") {
			if str(a, "type") == typ {
				return str(a, "address")
			}
		}
		return "<none>"
	}
	kernel := str(o, "status", "nodeInfo", "kernelVersion")
	if a := str(o, "status", "nodeInfo", "architecture"); a != "" && kernel != "" {
		kernel += " (" + a + ")"
	}
	return []any{name(o), status, orNone(strings.Join(roles, ",")), age(str(o, "metadata", "creationTimestamp"), now),
		str(o, "status", "nodeInfo", "kubeletVersion"), address("InternalIP"), address("ExternalIP"),
		orNone(str(o, "status", "nodeInfo", "osImage")), orNone(kernel), orNone(str(o, "status", "nodeInfo", "containerRuntimeVersion"))}
}

// eventCells prints core/v1 and events.k8s.io/v1 Events alike.
func eventCells(o jsonv.Value, now time.Time) []any {
	involved := get(o, "involvedObject")
	if involved == nil {
		involved = get(o, "regarding")
	}
	var obj jsonv.Value
	if involved != nil {
		obj = *involved
	}
	first := firstOf(str(o, "firstTimestamp"), str(o, "deprecatedFirstTimestamp"), str(o, "eventTime"))
	last := firstOf(str(o, "series", "lastObservedTime"), str(o, "lastTimestamp"), str(o, "deprecatedLastTimestamp"), str(o, "eventTime"))
	count := num(o, "count")
	if get(o, "count") == nil {
		count = num(o, "deprecatedCount")
	}
	if c := num(o, "series", "count"); c > 0 {
		count = c
	}
	source := firstOf(str(o, "source", "component"), str(o, "deprecatedSource", "component"), str(o, "reportingController"), str(o, "reportingComponent"))
	if host := firstOf(str(o, "source", "host"), str(o, "deprecatedSource", "host")); host != "" {
		source += ", " + host
	}
	message := firstOf(str(o, "message"), str(o, "note"))
	return []any{age(last, now), str(o, "type"), str(o, "reason"),
		strings.ToLower(str(obj, "kind")) + "/" + str(obj, "name"), str(obj, "fieldPath"), source,
		strings.TrimSpace(message), age(first, now), count, name(o)}
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

var accessModeShort = map[string]string{"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX", "ReadWriteOncePod": "RWOP"}

func accessModes(list []jsonv.Value) string {
	var out []string
	for _, m := range list {
		if s, ok := accessModeShort[m.Str]; ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(o jsonv.Value) string {
	if m := str(o, "spec", "volumeMode"); m != "" {
		return m
	}
	return "Filesystem"
}

func pvCells(o jsonv.Value, now time.Time) []any {
	claim := ""
	if ref := get(o, "spec", "claimRef"); ref != nil {
		claim = str(*ref, "namespace") + "/" + str(*ref, "name")
	}
	vac := str(o, "spec", "volumeAttributesClassName")
	if vac == "" {
		vac = "<unset>"
	}
	return []any{name(o), quantity(o, "spec", "capacity", "storage"), accessModes(arr(o, "spec", "accessModes")),
		str(o, "spec", "persistentVolumeReclaimPolicy"), str(o, "status", "phase"), claim, str(o, "spec", "storageClassName"),
		vac, str(o, "status", "reason"), age(str(o, "metadata", "creationTimestamp"), now), volumeMode(o)}
}

func pvcCells(o jsonv.Value, now time.Time) []any {
	capacity, modes := "", ""
	if str(o, "spec", "volumeName") != "" {
		capacity = quantity(o, "status", "capacity", "storage")
		modes = accessModes(arr(o, "status", "accessModes"))
	}
	vac := str(o, "status", "currentVolumeAttributesClassName")
	if vac == "" {
		vac = "<unset>"
	}
	return []any{name(o), str(o, "status", "phase"), str(o, "spec", "volumeName"), capacity, modes,
		str(o, "spec", "storageClassName"), vac, age(str(o, "metadata", "creationTimestamp"), now), volumeMode(o)}
}

func deploymentCells(o jsonv.Value, now time.Time) []any {
	containers, images := containersAndImages(getOr(o, "spec", "template", "spec"))
	return []any{name(o), fmt.Sprintf("%d/%d", num(o, "status", "readyReplicas"), num(o, "spec", "replicas")),
		num(o, "status", "updatedReplicas"), num(o, "status", "availableReplicas"),
		age(str(o, "metadata", "creationTimestamp"), now), containers, images, selectorString(get(o, "spec", "selector"))}
}

func replicaSetCells(o jsonv.Value, now time.Time) []any {
	containers, images := containersAndImages(getOr(o, "spec", "template", "spec"))
	return []any{name(o), num(o, "spec", "replicas"), num(o, "status", "replicas"), num(o, "status", "readyReplicas"),
		age(str(o, "metadata", "creationTimestamp"), now), containers, images, selectorString(get(o, "spec", "selector"))}
}

func statefulSetCells(o jsonv.Value, now time.Time) []any {
	containers, images := containersAndImages(getOr(o, "spec", "template", "spec"))
	return []any{name(o), fmt.Sprintf("%d/%d", num(o, "status", "readyReplicas"), num(o, "spec", "replicas")),
		age(str(o, "metadata", "creationTimestamp"), now), containers, images}
}

func daemonSetCells(o jsonv.Value, now time.Time) []any {
	containers, images := containersAndImages(getOr(o, "spec", "template", "spec"))
	return []any{name(o), num(o, "status", "desiredNumberScheduled"), num(o, "status", "currentNumberScheduled"),
		num(o, "status", "numberReady"), num(o, "status", "updatedNumberScheduled"), num(o, "status", "numberAvailable"),
		orNone(labelString(members(o, "spec", "template", "spec", "nodeSelector"))),
		age(str(o, "metadata", "creationTimestamp"), now), containers, images, selectorString(get(o, "spec", "selector"))}
}

func jobCells(o jsonv.Value, now time.Time) []any {
	var completions string
	switch {
	case get(o, "spec", "completions") != nil:
		completions = fmt.Sprintf("%d/%d", num(o, "status", "succeeded"), num(o, "spec", "completions"))
	case num(o, "spec", "parallelism") > 1:
		completions = fmt.Sprintf("%d/1 of %d", num(o, "status", "succeeded"), num(o, "spec", "parallelism"))
	default:
		completions = fmt.Sprintf("%d/1", num(o, "status", "succeeded"))
	}
	duration := ""
	if start, err := time.Parse(time.RFC3339, str(o, "status", "startTime")); err == nil {
		end := now
		if done, err := time.Parse(time.RFC3339, str(o, "status", "completionTime")); err == nil {
			end = done
		}
		duration = HumanDuration(end.Sub(start))
	}
	status := "Running"
	for _, c := range arr(o, "status", "conditions") {
		if str(c, "status") != "True" {
			continue
		}
		switch str(c, "type") {
		case "Complete":
			status = "Complete"
		case "Failed":
			status = "Failed"
		case "Suspended":
			status = "Suspended"
		case "FailureTarget":
			status = "FailureTarget"
		case "SuccessCriteriaMet":
			status = "SuccessCriteriaMet"
		}
	}
	if str(o, "metadata", "deletionTimestamp") != "" {
		status = "Terminating"
	}
	containers, images := containersAndImages(getOr(o, "spec", "template", "spec"))
	return []any{name(o), status, completions, duration, age(str(o, "metadata", "creationTimestamp"), now),
		containers, images, selectorString(get(o, "spec", "selector"))}
}

func cronJobCells(o jsonv.Value, now time.Time) []any {
	last := "<none>"
	if ts := str(o, "status", "lastScheduleTime"); ts != "" {
		last = age(ts, now)
	}
	containers, images := containersAndImages(getOr(o, "spec", "jobTemplate", "spec", "template", "spec"))
	return []any{name(o), str(o, "spec", "schedule"), orNone(str(o, "spec", "timeZone")),
		strings.ToUpper(strconv.FormatBool(boolean(o, "spec", "suspend"))[:1]) + strconv.FormatBool(boolean(o, "spec", "suspend"))[1:],
		len(arr(o, "status", "active")), last, age(str(o, "metadata", "creationTimestamp"), now),
		containers, images, selectorString(get(o, "spec", "jobTemplate", "spec", "selector"))}
}

func ingressCells(o jsonv.Value, now time.Time) []any {
	var hosts []string
	for _, r := range arr(o, "spec", "rules") {
		if h := str(r, "host"); h != "" {
			hosts = append(hosts, h)
		}
	}
	hostCell := strings.Join(hosts, ",")
	if hostCell == "" {
		hostCell = "*"
	}
	var addrs []string
	for _, in := range arr(o, "status", "loadBalancer", "ingress") {
		if ip := str(in, "ip"); ip != "" {
			addrs = append(addrs, ip)
		} else if h := str(in, "hostname"); h != "" {
			addrs = append(addrs, h)
		}
	}
	ports := "80"
	if len(arr(o, "spec", "tls")) > 0 {
		ports = "80, 443"
	}
	return []any{name(o), orNone(str(o, "spec", "ingressClassName")), hostCell, strings.Join(addrs, ","), ports,
		age(str(o, "metadata", "creationTimestamp"), now)}
}

func crdCells(o jsonv.Value, _ time.Time) []any {
	var versions []string
	for _, v := range arr(o, "spec", "versions") {
		s := str(v, "name")
		if boolean(v, "storage") {
			s += "(storage)"
		}
		versions = append(versions, s)
	}
	var short []string
	for _, s := range arr(o, "spec", "names", "shortNames") {
		short = append(short, s.Str)
	}
	established := false
	for _, c := range arr(o, "status", "conditions") {
		if str(c, "type") == "Established" && str(c, "status") == "True" {
			established = true
		}
	}
	return []any{name(o), str(o, "spec", "scope"), strings.Join(versions, ","), str(o, "metadata", "creationTimestamp"),
		str(o, "spec", "group"), str(o, "spec", "names", "kind"), strings.Join(short, ","), established}
}

// getOr returns the value at path, or an empty object.
func getOr(v jsonv.Value, path ...string) jsonv.Value {
	if x := get(v, path...); x != nil {
		return *x
	}
	return jsonv.NewObject()
}
