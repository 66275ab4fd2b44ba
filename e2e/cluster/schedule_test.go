package cluster

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestUnschedulable creates a pod asking for more CPU than any node has,
// one whose node selector no node matches, and one that fits: the pods'
// conditions (PodScheduled False, reason Unschedulable, and its message)
// and the scheduler's events (FailedScheduling, Scheduled).
func TestUnschedulable(t *testing.T) {
	runOn(t, "unschedulable", func(t *testing.T, s *Side) {
		ctx := context.Background()
		for _, name := range []string{"big", "picky", "fits"} {
			must(t, follow(s.Informers.Core().V1().Pods().Informer(), s.Rec, "pod "+name, func(v *seen[*corev1.Pod]) string {
				if p, ok := v.objs[name]; ok {
					return podConditions(p, false)
				}
				return ""
			}))
		}
		followEvents(t, s, "Pod")
		s.Start(t)

		big := pod("big", "registry.example/web:1")
		big.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}
		picky := pod("picky", "registry.example/web:1")
		picky.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
		for _, p := range []*corev1.Pod{big, picky, pod("fits", "registry.example/web:1")} {
			if _, err := s.Client.CoreV1().Pods(s.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: create pod %s: %v", s.Name, p.Name, err)
			}
		}
		for _, name := range []string{"big", "picky"} {
			awaitPod(t, s, name, "not scheduled", func(p *corev1.Pod) bool {
				return podCondition(p, corev1.PodScheduled) == corev1.ConditionFalse
			})
			awaitEvent(t, s, "Pod", name, "FailedScheduling")
		}
		awaitPod(t, s, "fits", "ready", func(p *corev1.Pod) bool { return podCondition(p, corev1.PodReady) == corev1.ConditionTrue })
		awaitEvent(t, s, "Pod", "fits", "Scheduled")
		// The kubelet reports the container's start after the pod's
		// readiness, so its last event is awaited, not assumed.
		awaitEvent(t, s, "Pod", "fits", "Started")
		for _, name := range []string{"big", "picky", "fits"} {
			p, err := s.Client.CoreV1().Pods(s.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s: get pod %s: %v", s.Name, name, err)
			}
			s.Rec.Step("pod "+name+" at the end", podConditions(p, true))
		}
	})
}

func pod(name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
	}
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// awaitPod waits until the pod satisfies cond.
func awaitPod(t *testing.T, s *Side, name, what string, cond func(*corev1.Pod) bool) {
	t.Helper()
	s.Await(t, "pod "+name+" "+what, func(ctx context.Context) (bool, error) {
		p, err := s.Client.CoreV1().Pods(s.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cond(p), nil
	})
}
