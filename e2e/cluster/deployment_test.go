package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// TestDeployment creates a Deployment of three, scales it to five and
// back, rolls it out with maxSurge 1 and maxUnavailable 0, again with
// maxSurge 0 and maxUnavailable 1, and rolls it back (kubectl rollout
// undo): the ReplicaSets' scale sequence, the Deployment's conditions and
// the controller's events, and both after every step.
func TestDeployment(t *testing.T) {
	runOn(t, "deployment", func(t *testing.T, s *Side) {
		ctx := context.Background()
		apps := s.Informers.Apps().V1()
		must(t, follow(apps.ReplicaSets().Informer(), s.Rec, "replicaset scale", scaleSequence(s.Rec)))
		must(t, follow(apps.Deployments().Informer(), s.Rec, "deployment conditions", func(v *seen[*appsv1.Deployment]) string {
			if d, ok := v.objs["web"]; ok {
				return deploymentConditions(d, false)
			}
			return ""
		}))
		followEvents(t, s, "Deployment", "ReplicaSet")
		s.Start(t)

		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](3),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Strategy: rolling(1, 0),
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example/web:1"}}},
				},
			},
		}
		if _, err := s.Client.AppsV1().Deployments(s.Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: create deployment: %v", s.Name, err)
		}
		rolledOut(t, s, "created")
		for _, n := range []int32{5, 3} {
			scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: s.Namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: n}}
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cur, err := s.Client.AppsV1().Deployments(s.Namespace).GetScale(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return err
				}
				scale.ResourceVersion = cur.ResourceVersion
				_, err = s.Client.AppsV1().Deployments(s.Namespace).UpdateScale(ctx, "web", scale, metav1.UpdateOptions{})
				return err
			})
			if err != nil {
				t.Fatalf("%s: scale to %d: %v", s.Name, n, err)
			}
			rolledOut(t, s, fmt.Sprintf("scaled to %d", n))
		}
		updateDeployment(t, s, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "registry.example/web:2" })
		rolledOut(t, s, "image web:2, maxSurge 1 maxUnavailable 0")
		updateDeployment(t, s, func(d *appsv1.Deployment) {
			d.Spec.Strategy = rolling(0, 1)
			d.Spec.Template.Spec.Containers[0].Image = "registry.example/web:3"
		})
		rolledOut(t, s, "image web:3, maxSurge 0 maxUnavailable 1")
		undo(t, s)
		rolledOut(t, s, "rolled back")
	})
}

func rolling(surge, unavailable int) appsv1.DeploymentStrategy {
	return appsv1.DeploymentStrategy{
		Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxSurge:       ptr.To(intstr.FromInt32(int32(surge))),
			MaxUnavailable: ptr.To(intstr.FromInt32(int32(unavailable))),
		},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// updateDeployment changes the Deployment web as change says, again on a
// conflict.
func updateDeployment(t *testing.T, s *Side, change func(*appsv1.Deployment)) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := s.Client.AppsV1().Deployments(s.Namespace).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(d)
		_, err = s.Client.AppsV1().Deployments(s.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("%s: update deployment: %v", s.Name, err)
	}
}

// rolledOut waits until the Deployment web has rolled out, as kubectl
// rollout status waits, and the old ReplicaSets have no pods left, then
// records the Deployment and its ReplicaSets under step.
func rolledOut(t *testing.T, s *Side, step string) {
	t.Helper()
	var d *appsv1.Deployment
	var rss []*appsv1.ReplicaSet
	s.Await(t, "deployment web rolled out ("+step+")", func(ctx context.Context) (bool, error) {
		var err error
		d, err = s.Client.AppsV1().Deployments(s.Namespace).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		want := ptr.Deref(d.Spec.Replicas, 1)
		st := d.Status
		if d.Status.ObservedGeneration < d.Generation || st.UpdatedReplicas != want || st.Replicas != want ||
			st.AvailableReplicas != want || st.ReadyReplicas != want || st.UnavailableReplicas != 0 {
			return false, nil
		}
		if ptr.Deref(st.TerminatingReplicas, 0) != 0 || !progressed(d) {
			return false, nil
		}
		list, err := s.Client.AppsV1().ReplicaSets(s.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		rss = rss[:0]
		for i := range list.Items {
			rs := &list.Items[i]
			if ptr.Deref(rs.Spec.Replicas, 0) == 0 && (rs.Status.Replicas != 0 || ptr.Deref(rs.Status.TerminatingReplicas, 0) != 0) {
				return false, nil
			}
			if rs.Status.ObservedGeneration < rs.Generation {
				return false, nil
			}
			rss = append(rss, rs)
		}
		return true, nil
	})
	s.Rec.Step("deployment after each step", step+": "+deploymentStatus(d))
	states := map[string]string{}
	for _, rs := range rss {
		states[s.Rec.Alias("rs", rs.Name)] = replicaSet(s.Rec, rs)
	}
	for _, k := range slices.Sorted(maps.Keys(states)) {
		s.Rec.Step("replicasets after each step", step+": "+states[k])
	}
}

// progressed reports whether the Deployment's Progressing condition says
// its newest ReplicaSet is available, the last thing a rollout writes.
func progressed(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			return c.Reason == "NewReplicaSetAvailable"
		}
	}
	return false
}

// undo rolls the Deployment web back to its previous revision as kubectl
// rollout undo does: the template of the ReplicaSet with the second
// highest revision, without its pod-template-hash label, written into the
// Deployment.
func undo(t *testing.T, s *Side) {
	t.Helper()
	ctx := context.Background()
	list, err := s.Client.AppsV1().ReplicaSets(s.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("%s: list replicasets: %v", s.Name, err)
	}
	var revs []int64
	for i := range list.Items {
		rs := &list.Items[i]
		rev, err := strconv.ParseInt(rs.Annotations["deployment.kubernetes.io/revision"], 10, 64)
		if err != nil {
			t.Fatalf("%s: replicaset %s: revision annotation: %v", s.Name, rs.Name, err)
		}
		revs = append(revs, rev)
	}
	slices.Sort(revs)
	if len(revs) < 2 {
		t.Fatalf("%s: revisions %v: nothing to roll back to", s.Name, revs)
	}
	previous := revs[len(revs)-2]
	prevRS := findRevision(list.Items, previous)
	if prevRS == nil {
		t.Fatalf("%s: no replicaset of revision %d to roll back to", s.Name, previous)
	}
	updateDeployment(t, s, func(d *appsv1.Deployment) {
		tmpl := prevRS.Spec.Template.DeepCopy()
		labels := maps.Clone(tmpl.Labels)
		delete(labels, "pod-template-hash")
		tmpl.Labels = labels
		d.Spec.Template = *tmpl
	})
}

func findRevision(rss []appsv1.ReplicaSet, rev int64) *appsv1.ReplicaSet {
	want := strconv.FormatInt(rev, 10)
	for i := range rss {
		if rss[i].Annotations["deployment.kubernetes.io/revision"] == want {
			return &rss[i]
		}
	}
	return nil
}
