package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespaceDefaults creates a namespace and waits for what the
// controllers put in every namespace: the default ServiceAccount and the
// kube-root-ca.crt ConfigMap, written down without the CA itself.
func TestNamespaceDefaults(t *testing.T) {
	runOn(t, "namespace", func(t *testing.T, s *Side) {
		must(t, follow(s.Informers.Core().V1().ServiceAccounts().Informer(), s.Rec, "serviceaccounts", func(v *seen[*corev1.ServiceAccount]) string {
			var names []string
			for _, sa := range v.list() {
				names = append(names, sa.Name)
			}
			return strings.Join(names, " ")
		}))
		s.Start(t)
		var sa *corev1.ServiceAccount
		var cm *corev1.ConfigMap
		s.Await(t, "the default ServiceAccount and the kube-root-ca.crt ConfigMap", func(ctx context.Context) (bool, error) {
			var err error
			if sa, err = s.Client.CoreV1().ServiceAccounts(s.Namespace).Get(ctx, "default", metav1.GetOptions{}); err != nil {
				return false, nil
			}
			cm, err = s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err == nil, nil
		})
		s.Rec.Step("serviceaccount default", fmt.Sprintf("secrets=%d imagePullSecrets=%d automount=%s labels=%v annotations=%v",
			len(sa.Secrets), len(sa.ImagePullSecrets), show(sa.AutomountServiceAccountToken), sa.Labels, sa.Annotations))
		var keys []string
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		s.Rec.Step("configmap kube-root-ca.crt", fmt.Sprintf("data=%v binaryData=%d labels=%v annotations=%v",
			keys, len(cm.BinaryData), cm.Labels, cm.Annotations))
	})
}
