package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NamespaceLabel marks every namespace the suite creates, so a person can
// find leftovers with `kubectl get ns -l kubecache-e2e`.
const NamespaceLabel = "kubecache-e2e"

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// NewName returns "<prefix>-<5 random hex digits>", a valid DNS label.
func NewName(prefix string) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	p := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(prefix), "-"), "-")
	if len(p) > 40 {
		p = strings.TrimRight(p[:40], "-")
	}
	return p + "-" + hex.EncodeToString(b[:])[:5]
}

// Clientset returns a typed client-go clientset for the target.
func (t *Target) Clientset(tb testing.TB) *kubernetes.Clientset {
	tb.Helper()
	cs, err := kubernetes.NewForConfig(t.RESTConfig(tb))
	if err != nil {
		tb.Fatalf("target %s: clientset: %v", t, err)
	}
	return cs
}

// Namespace creates a namespace for the test, named after it, and deletes
// it when the test ends. The suite touches nothing outside the namespaces
// it creates (and, on the fake server, its cluster-scoped test objects).
func (t *Target) Namespace(tb testing.TB) string {
	tb.Helper()
	cs := t.Clientset(tb)
	name := NewName("e2e-" + tb.Name())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{NamespaceLabel: "true"}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("create namespace %s on %s: %v", name, t, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// A fresh client: a test may have restarted the server under the
		// old one's connections.
		cs := t.Clientset(tb)
		err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			tb.Errorf("delete namespace %s: %v", name, err)
		}
	})
	return name
}
