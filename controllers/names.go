package controllers

import (
	"fmt"
	"slices"
	"strings"
)

// The controllers a Manager can run, by the names --controllers takes.
const (
	CronJob        = "cronjob"
	DaemonSet      = "daemonset"
	Deployment     = "deployment"
	Disruption     = "disruption"
	EndpointSlice  = "endpointslice"
	Job            = "job"
	NodeLifecycle  = "nodelifecycle"
	PVCProtection  = "pvcprotection"
	ReplicaSet     = "replicaset"
	Scheduler      = "scheduler"
	ServiceAccount = "serviceaccount"
	StatefulSet    = "statefulset"
)

// All lists every controller, in the order a Manager starts them.
var All = []string{CronJob, DaemonSet, Deployment, Disruption, EndpointSlice, Job, NodeLifecycle, PVCProtection, ReplicaSet, Scheduler, ServiceAccount, StatefulSet}

// ParseNames reads a --controllers value: "all", "" (none), or a comma
// separated list of names, where "-name" removes one from what comes
// before ("all,-scheduler").
func ParseNames(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case part == "all" || part == "*":
			for _, n := range All {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		case strings.HasPrefix(part, "-"):
			name := part[1:]
			if !slices.Contains(All, name) {
				return nil, fmt.Errorf("unknown controller %q (known: %s)", name, strings.Join(All, ", "))
			}
			out = slices.DeleteFunc(out, func(n string) bool { return n == name })
		default:
			if !slices.Contains(All, part) {
				return nil, fmt.Errorf("unknown controller %q (known: %s)", part, strings.Join(All, ", "))
			}
			if !slices.Contains(out, part) {
				out = append(out, part)
			}
		}
	}
	return out, nil
}
