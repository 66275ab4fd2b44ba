package programs

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// copies is what the server holds for one ConfigMap name: namespace →
// the ConfigMap's data.
type copies map[string]map[string]string

// awaitConfigMaps lists the ConfigMaps named name in every namespace, then
// watches them, until cond holds for what the server holds (checked after
// the list and after every event) or d has passed. A watch the server ends
// is opened again from the list.
func awaitConfigMaps(t *testing.T, cs kubernetes.Interface, name string, d time.Duration, what string, cond func(copies) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	sel := fields.OneTermEqualSelector("metadata.name", name).String()
	var last copies
	for ctx.Err() == nil {
		list, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			t.Fatalf("waiting for %s: list configmaps named %s: %v", what, name, err)
		}
		state := copies{}
		for _, cm := range list.Items {
			state[cm.Namespace] = cm.Data
		}
		last = state
		if cond(state) {
			return
		}
		w, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: list.ResourceVersion})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			t.Fatalf("waiting for %s: watch configmaps named %s: %v", what, name, err)
		}
		if done := follow(w, state, cond); done {
			return
		}
		last = state
	}
	t.Fatalf("waiting for %s: not reached after %v; the server holds %s", what, d, describe(last))
}

// follow applies w's events to state until cond holds (true) or the watch
// ends (false).
func follow(w watch.Interface, state copies, cond func(copies) bool) bool {
	defer w.Stop()
	for ev := range w.ResultChan() {
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok {
			continue // a bookmark or an error Status: the caller lists again
		}
		switch ev.Type {
		case watch.Added, watch.Modified:
			state[cm.Namespace] = cm.Data
		case watch.Deleted:
			delete(state, cm.Namespace)
		}
		if cond(state) {
			return true
		}
	}
	return false
}

func describe(c copies) string {
	if len(c) == 0 {
		return "no such ConfigMap"
	}
	return fmt.Sprint(map[string]map[string]string(c))
}
