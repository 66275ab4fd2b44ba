package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestJob runs a Job of two completions one at a time whose containers
// succeed, and one whose containers fail, with a backoffLimit of 1: the
// Jobs' conditions, status and events, and their pods' final phases.
func TestJob(t *testing.T) {
	runOn(t, "job", func(t *testing.T, s *Side) {
		ctx := context.Background()
		batch := s.Informers.Batch().V1()
		for _, name := range []string{"ok", "bad"} {
			must(t, follow(batch.Jobs().Informer(), s.Rec, "job "+name+" conditions", func(v *seen[*batchv1.Job]) string {
				if j, ok := v.objs[name]; ok {
					return jobConditions(j)
				}
				return ""
			}))
		}
		// Pods get stand-ins in the order they appear, so that the
		// events naming them compare.
		pods := s.Informers.Core().V1().Pods().Informer()
		must(t, follow(pods, s.Rec, "", func(v *seen[*corev1.Pod]) string {
			for _, p := range v.list() {
				s.Rec.Alias(p.Labels["job-name"]+"-pod", p.Name)
			}
			return ""
		}))
		followEvents(t, s, "Job")
		s.Start(t)

		jobs := []*batchv1.Job{
			job("ok", "registry.example/succeed:1", 2, 6),
			job("bad", "registry.example/fail:1", 1, 1),
		}
		for _, j := range jobs {
			if _, err := s.Client.BatchV1().Jobs(s.Namespace).Create(ctx, j, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: create job %s: %v", s.Name, j.Name, err)
			}
		}
		for _, j := range []struct{ name, cond, event string }{{"ok", "Complete", "Completed"}, {"bad", "Failed", "BackoffLimitExceeded"}} {
			var got *batchv1.Job
			s.Await(t, "job "+j.name+" "+j.cond, func(ctx context.Context) (bool, error) {
				var err error
				got, err = s.Client.BatchV1().Jobs(s.Namespace).Get(ctx, j.name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return hasJobCondition(got, j.cond) && got.Status.Active == 0 && ptr.Deref(got.Status.Terminating, 0) == 0, nil
			})
			// The controller reports a finished Job after it writes the
			// condition, so the event is awaited too.
			awaitEvent(t, s, "Job", j.name, j.event)
			s.Rec.Step("job "+j.name+" finished", jobStatus(got))
			s.Rec.Step("job "+j.name+" pods", jobPods(t, s, j.name))
		}
	})
}

func job(name, image string, completions, backoffLimit int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			Completions:  ptr.To(completions),
			Parallelism:  ptr.To[int32](1),
			BackoffLimit: ptr.To(backoffLimit),
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "work", Image: image}},
				},
			},
		},
	}
}

func hasJobCondition(j *batchv1.Job, typ string) bool {
	for _, c := range j.Status.Conditions {
		if string(c.Type) == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// jobPods writes down the phases of a Job's pods and whether they still
// carry the Job's tracking finalizer.
func jobPods(t *testing.T, s *Side, name string) string {
	t.Helper()
	list, err := s.Client.CoreV1().Pods(s.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: "job-name=" + name})
	if err != nil {
		t.Fatalf("%s: list pods of job %s: %v", s.Name, name, err)
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, fmt.Sprintf("%s finalizers=%v", p.Status.Phase, p.Finalizers))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
