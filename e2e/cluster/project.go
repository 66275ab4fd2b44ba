package cluster

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// A state is a line of text: what a scenario compares of an object, with
// no timing, uids or resourceVersions, and with the names the servers
// choose given stand-ins by the Recorder.

// condition writes down a condition as type=status/reason, with the
// message when withMessage.
func condition(typ, status, reason, message string, withMessage bool) string {
	s := typ + "=" + status + "/" + reason
	if withMessage && message != "" {
		s += " " + fmt.Sprintf("%q", message)
	}
	return s
}

func deploymentConditions(d *appsv1.Deployment, withMessage bool) string {
	var out []string
	for _, c := range d.Status.Conditions {
		out = append(out, condition(string(c.Type), string(c.Status), c.Reason, c.Message, withMessage))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// deploymentStatus is a Deployment's counts, generations, revision and
// conditions with their messages.
func deploymentStatus(d *appsv1.Deployment) string {
	return fmt.Sprintf("gen=%d observed=%d replicas=%d updated=%d ready=%d available=%d unavailable=%d terminating=%s revision=%s %s",
		d.Generation, d.Status.ObservedGeneration, d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas,
		d.Status.AvailableReplicas, d.Status.UnavailableReplicas, show(d.Status.TerminatingReplicas),
		d.Annotations["deployment.kubernetes.io/revision"], deploymentConditions(d, true))
}

// replicaSet is one ReplicaSet of a Deployment: its stand-in, spec and
// status counts, the deployment.kubernetes.io annotations and image.
func replicaSet(rec *Recorder, rs *appsv1.ReplicaSet) string {
	var ann []string
	for k, v := range rs.Annotations {
		if strings.HasPrefix(k, "deployment.kubernetes.io/") {
			ann = append(ann, strings.TrimPrefix(k, "deployment.kubernetes.io/")+"="+v)
		}
	}
	sort.Strings(ann)
	image := ""
	if cs := rs.Spec.Template.Spec.Containers; len(cs) > 0 {
		image = cs[0].Image
	}
	_, hashed := rs.Labels["pod-template-hash"]
	return fmt.Sprintf("%s spec=%s status=%d/%d/%d fullyLabeled=%d terminating=%s observed=%t hashLabel=%t image=%s %s",
		rec.Alias("rs", rs.Name), show(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas,
		rs.Status.FullyLabeledReplicas, show(rs.Status.TerminatingReplicas), rs.Status.ObservedGeneration == rs.Generation,
		hashed, image, strings.Join(ann, " "))
}

// scaleSequence is the spec.replicas of every ReplicaSet, in the order
// they were created: the rolling update's steps.
func scaleSequence(rec *Recorder) func(*seen[*appsv1.ReplicaSet]) string {
	return func(s *seen[*appsv1.ReplicaSet]) string {
		var out []string
		for _, rs := range s.list() {
			out = append(out, fmt.Sprintf("%s=%s", rec.Alias("rs", rs.Name), show(rs.Spec.Replicas)))
		}
		return strings.Join(out, " ")
	}
}

func jobStatus(j *batchv1.Job) string {
	var conds []string
	for _, c := range j.Status.Conditions {
		conds = append(conds, condition(string(c.Type), string(c.Status), c.Reason, c.Message, true))
	}
	sort.Strings(conds)
	uncounted := "nil"
	if u := j.Status.UncountedTerminatedPods; u != nil {
		uncounted = fmt.Sprintf("%d/%d", len(u.Succeeded), len(u.Failed))
	}
	return fmt.Sprintf("active=%d succeeded=%d failed=%d ready=%s terminating=%s uncounted=%s completedIndexes=%q %s",
		j.Status.Active, j.Status.Succeeded, j.Status.Failed, show(j.Status.Ready), show(j.Status.Terminating),
		uncounted, j.Status.CompletedIndexes, strings.Join(conds, " "))
}

func jobConditions(j *batchv1.Job) string {
	var conds []string
	for _, c := range j.Status.Conditions {
		conds = append(conds, condition(string(c.Type), string(c.Status), c.Reason, "", false))
	}
	sort.Strings(conds)
	return strings.Join(conds, " ")
}

// podConditions is a pod's phase and conditions with their messages.
func podConditions(p *corev1.Pod, withMessage bool) string {
	var conds []string
	for _, c := range p.Status.Conditions {
		conds = append(conds, condition(string(c.Type), string(c.Status), c.Reason, c.Message, withMessage))
	}
	sort.Strings(conds)
	node := "-"
	if p.Spec.NodeName != "" {
		node = "<node>"
	}
	return fmt.Sprintf("phase=%s node=%s nominated=%q %s", p.Status.Phase, node, p.Status.NominatedNodeName, strings.Join(conds, " "))
}

// event is an Event as its recorder wrote it: type, reason, source,
// action and message, under the object it is about and the component
// that reported it (each component's events come in its order; how two
// components' interleave is timing). Node names become <node>: which
// node the schedulers pick is not compared.
func event(e *corev1.Event) (key, state string) {
	src := e.Source.Component
	if e.ReportingController != "" {
		src += "|" + e.ReportingController
	}
	msg := e.Message
	for i := 1; i <= NodeCount; i++ {
		msg = strings.ReplaceAll(msg, fmt.Sprintf("%s%d", NodePrefix, i), "<node>")
	}
	return "events " + e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name + " by " + e.Source.Component,
		fmt.Sprintf("%s %s from=%s action=%q %q", e.Type, e.Reason, src, e.Action, msg)
}

// endpointSlices is the endpoints of a Service's slices, by the pod each
// points to, with their conditions, and the slices' ports and labels.
func endpointSlices(service string) func(*seen[*discoveryv1.EndpointSlice]) string {
	return func(s *seen[*discoveryv1.EndpointSlice]) string {
		var eps, meta []string
		for _, sl := range s.list() {
			if sl.Labels[discoveryv1.LabelServiceName] != service {
				continue
			}
			var ports []string
			for _, p := range sl.Ports {
				ports = append(ports, fmt.Sprintf("%s/%s/%s", show(p.Name), show(p.Port), show(p.Protocol)))
			}
			meta = append(meta, fmt.Sprintf("slice(%s managedBy=%s ports=%s)", sl.AddressType,
				sl.Labels[discoveryv1.LabelManagedBy], strings.Join(ports, ",")))
			for _, ep := range sl.Endpoints {
				name := "?"
				if ep.TargetRef != nil {
					name = ep.TargetRef.Kind + "/" + ep.TargetRef.Name
				}
				eps = append(eps, fmt.Sprintf("%s(ready=%s serving=%s terminating=%s node=%t)", name,
					show(ep.Conditions.Ready), show(ep.Conditions.Serving), show(ep.Conditions.Terminating), ep.NodeName != nil))
			}
		}
		sort.Strings(eps)
		sort.Strings(meta)
		return strings.Join(append(meta, eps...), " ")
	}
}

// show writes down a pointer's value, or nil.
func show[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}
