package table

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

func init() {
	for k, f := range map[string]cellFunc{
		"rbac.authorization.k8s.io/rolebindings":                   roleBindingCells,
		"rbac.authorization.k8s.io/clusterrolebindings":            roleBindingCells,
		"apiregistration.k8s.io/apiservices":                       apiServiceCells,
		"certificates.k8s.io/certificatesigningrequests":           csrCells,
		"autoscaling/horizontalpodautoscalers":                     hpaCells,
		"flowcontrol.apiserver.k8s.io/flowschemas":                 flowSchemaCells,
		"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": priorityLevelCells,
		"scheduling.k8s.io/priorityclasses": func(o jsonv.Value, now time.Time) []any {
			return []any{name(o), num(o, "value"), boolean(o, "globalDefault"), age(str(o, "metadata", "creationTimestamp"), now), str(o, "preemptionPolicy")}
		},
		"networking.k8s.io/ipaddresses": func(o jsonv.Value, now time.Time) []any {
			ref := getOr(o, "spec", "parentRef")
			res := str(ref, "resource")
			if g := str(ref, "group"); g != "" {
				res += "." + g
			}
			parent := res + "/" + str(ref, "name")
			if ns := str(ref, "namespace"); ns != "" {
				parent = res + "/" + ns + "/" + str(ref, "name")
			}
			return []any{name(o), parent, age(str(o, "metadata", "creationTimestamp"), now)}
		},
		"networking.k8s.io/servicecidrs": func(o jsonv.Value, now time.Time) []any {
			var cidrs []string
			for _, c := range arr(o, "spec", "cidrs") {
				cidrs = append(cidrs, c.Str)
			}
			return []any{name(o), strings.Join(cidrs, ","), age(str(o, "metadata", "creationTimestamp"), now)}
		},
	} {
		builtinCells[k] = f
	}
}

func roleBindingCells(o jsonv.Value, now time.Time) []any {
	var users, groups, sas []string
	for _, s := range arr(o, "subjects") {
		switch str(s, "kind") {
		case "User":
			users = append(users, str(s, "name"))
		case "Group":
			groups = append(groups, str(s, "name"))
		case "ServiceAccount":
			sas = append(sas, str(s, "namespace")+"/"+str(s, "name"))
		}
	}
	return []any{name(o), str(o, "roleRef", "kind") + "/" + str(o, "roleRef", "name"), age(str(o, "metadata", "creationTimestamp"), now),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}

func apiServiceCells(o jsonv.Value, now time.Time) []any {
	service := "Local"
	if svc := get(o, "spec", "service"); svc != nil && svc.Kind == jsonv.Object {
		service = str(*svc, "namespace") + "/" + str(*svc, "name")
	}
	status := "Unknown"
	for _, c := range arr(o, "status", "conditions") {
		if str(c, "type") == "Available" {
			status = str(c, "status")
			if status != "True" {
				status = fmt.Sprintf("%s (%s)", status, str(c, "reason"))
			}
		}
	}
	return []any{name(o), service, status, age(str(o, "metadata", "creationTimestamp"), now)}
}

func flowSchemaCells(o jsonv.Value, now time.Time) []any {
	method := "<none>"
	if m := str(o, "spec", "distinguisherMethod", "type"); m != "" {
		method = m
	}
	dangling := "?"
	for _, c := range arr(o, "status", "conditions") {
		if str(c, "type") == "Dangling" {
			dangling = str(c, "status")
		}
	}
	return []any{name(o), str(o, "spec", "priorityLevelConfiguration", "name"), num(o, "spec", "matchingPrecedence"), method,
		age(str(o, "metadata", "creationTimestamp"), now), dangling}
}

func priorityLevelCells(o jsonv.Value, now time.Time) []any {
	var ncs, queues, handSize, queueLength any = "<none>", "<none>", "<none>", "<none>"
	if lim := get(o, "spec", "limited"); lim != nil {
		ncs = num(*lim, "nominalConcurrencyShares")
		if q := get(*lim, "limitResponse", "queuing"); q != nil {
			queues, handSize, queueLength = num(*q, "queues"), num(*q, "handSize"), num(*q, "queueLengthLimit")
		}
	}
	return []any{name(o), str(o, "spec", "type"), ncs, queues, handSize, queueLength, age(str(o, "metadata", "creationTimestamp"), now)}
}

// csrCells: NAME, AGE, SIGNERNAME, REQUESTOR, REQUESTEDDURATION and
// CONDITION (Denied, Approved or Pending, then ",Failed" and ",Issued").
func csrCells(o jsonv.Value, now time.Time) []any {
	var approved, denied, failed bool
	for _, c := range arr(o, "status", "conditions") {
		switch str(c, "type") {
		case "Approved":
			approved = true
		case "Denied":
			denied = true
		case "Failed":
			failed = true
		}
	}
	cond := "Pending"
	switch {
	case denied:
		cond = "Denied"
	case approved:
		cond = "Approved"
	}
	if failed {
		cond += ",Failed"
	}
	if str(o, "status", "certificate") != "" {
		cond += ",Issued"
	}
	duration := "<none>"
	if get(o, "spec", "expirationSeconds") != nil {
		duration = HumanDuration(time.Duration(num(o, "spec", "expirationSeconds")) * time.Second)
	}
	return []any{name(o), age(str(o, "metadata", "creationTimestamp"), now), orNone(str(o, "spec", "signerName")),
		str(o, "spec", "username"), duration, cond}
}
