package cluster

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// TestEndpointSlices creates a Service and two of its pods, one that turns
// ready and one that never does, then deletes the ready one while its
// container takes its time to stop: the Service's EndpointSlices through
// every step (ready, serving and terminating as the pods go).
func TestEndpointSlices(t *testing.T) {
	runOn(t, "endpointslices", func(t *testing.T, s *Side) {
		ctx := context.Background()
		must(t, follow(s.Informers.Discovery().V1().EndpointSlices().Informer(), s.Rec, "endpointslices", endpointSlices("web")))
		s.Start(t)

		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "web"},
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
			},
		}
		if _, err := s.Client.CoreV1().Services(s.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: create service: %v", s.Name, err)
		}
		ready := pod("ready", "registry.example/web:1")
		// Its container takes 20 s to stop, within the 30 s grace period,
		// so the endpoint is seen terminating.
		ready.Annotations = map[string]string{"sim.kubecache.dev/stop-after": "20s"}
		unready := pod("unready", "registry.example/never-ready:1")
		create := func(p *corev1.Pod) {
			p.Labels = map[string]string{"app": "web"}
			p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](30)
			if _, err := s.Client.CoreV1().Pods(s.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: create pod %s: %v", s.Name, p.Name, err)
			}
		}
		slicesOf := func(ctx context.Context) (string, error) {
			list, err := s.Client.DiscoveryV1().EndpointSlices(s.Namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return "", err
			}
			v := &seen[*discoveryv1.EndpointSlice]{objs: map[string]*discoveryv1.EndpointSlice{}, first: map[string]int{}}
			for i := range list.Items {
				v.objs[list.Items[i].Name] = &list.Items[i]
				v.first[list.Items[i].Name] = i
			}
			return endpointSlices("web")(v), nil
		}
		step := func(name string, cond func(state string) bool) {
			var state string
			s.Await(t, "endpoint slices: "+name, func(ctx context.Context) (bool, error) {
				var err error
				state, err = slicesOf(ctx)
				return err == nil && cond(state), err
			})
			s.Rec.Step("endpointslices after each step", name+": "+state)
			// The watch delivers the listed state a moment later: await
			// it, so that the scenario does not end before its
			// sequence holds the last state.
			s.Await(t, "endpoint slices watched: "+name, func(context.Context) (bool, error) {
				return s.Rec.Last("endpointslices") == state, nil
			})
		}
		// One pod at a time: whether the controller syncs between two
		// pods getting their addresses is timing.
		step("no pods", func(st string) bool { return strings.Contains(st, "ports=") && !strings.Contains(st, "Pod/") })
		create(ready)
		step("the ready pod running", func(st string) bool { return strings.Contains(st, "Pod/ready(ready=true") })
		create(unready)
		step("both pods running", func(st string) bool {
			return strings.Contains(st, "Pod/ready(ready=true") && strings.Contains(st, "Pod/unready(")
		})
		if err := s.Client.CoreV1().Pods(s.Namespace).Delete(ctx, "ready", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("%s: delete pod ready: %v", s.Name, err)
		}
		step("the ready pod terminating", func(st string) bool { return strings.Contains(st, "Pod/ready(ready=false") })
		step("the ready pod gone", func(st string) bool { return !strings.Contains(st, "Pod/ready(") })
	})
}
