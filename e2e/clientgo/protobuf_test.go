package clientgo

import (
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// mediaRecorder records the Content-Type of every request body and
// response a client sends and receives.
type mediaRecorder struct {
	next http.RoundTripper
	// mu guards sent and received.
	mu             sync.Mutex
	sent, received map[string]int
}

func (m *mediaRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := m.next.RoundTrip(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if ct := r.Header.Get("Content-Type"); ct != "" {
		m.sent[ct]++
	}
	if err == nil {
		m.received[resp.Header.Get("Content-Type")]++
	}
	return resp, err
}

func (m *mediaRecorder) counts() (sent, received map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.sent), maps.Clone(m.received)
}

// recordedClient is a clientset with client-go's default rest.Config whose
// traffic is recorded.
func recordedClient(t *testing.T) (*kubernetes.Clientset, *mediaRecorder) {
	cfg := target.Get(t).RESTConfig(t)
	require.Empty(t, cfg.ContentType, "the default rest.Config")
	rec := &mediaRecorder{sent: map[string]int{}, received: map[string]int{}}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs, rec
}

// TestDefaultConfigSpeaksProtobuf: with the default rest.Config, typed
// writes send protobuf and every answer (objects, errors) comes back in
// protobuf, as from a real server.
func TestDefaultConfigSpeaksProtobuf(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	ctx := t.Context()
	cs, rec := recordedClient(t)
	cms := cs.CoreV1().ConfigMaps(ns)
	_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pb"}, BinaryData: map[string][]byte{"b": {0, 1, 0xff}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	got, err := cms.Get(ctx, "pb", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 1, 0xff}, got.BinaryData["b"])
	_, err = cms.Get(ctx, "missing", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get missing: %v", err)
	sent, received := rec.counts()
	assert.Equal(t, map[string]int{"application/vnd.kubernetes.protobuf": 1}, sent)
	assert.Equal(t, map[string]int{"application/vnd.kubernetes.protobuf": 3}, received)
}

// TestDeleteWithOptions sends DeleteOptions bodies in protobuf: a dry
// run, a stale precondition (409), then a real delete.
func TestDeleteWithOptions(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	ctx := t.Context()
	cms := typedClient(t).CoreV1().ConfigMaps(ns)
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "d", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}))
	_, err = cms.Get(ctx, "d", metav1.GetOptions{})
	require.NoError(t, err, "a dry-run delete keeps the object")
	err = cms.Delete(ctx, "d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
	assert.True(t, apierrors.IsConflict(err), "stale precondition: %v", err)
	require.NoError(t, cms.Delete(ctx, "d", metav1.DeleteOptions{
		Preconditions:     &metav1.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion},
		PropagationPolicy: ptr.To(metav1.DeletePropagationBackground),
	}))
	_, err = cms.Get(ctx, "d", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "after delete: %v", err)
	require.NoError(t, cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "none=here"}))
}

// TestUpdateScale reads and writes a Deployment's scale subresource
// (autoscaling/v1 Scale, in protobuf both ways).
func TestUpdateScale(t *testing.T) {
	ns := target.Get(t).Namespace(t)
	ctx := t.Context()
	deps := typedClient(t).AppsV1().Deployments(ns)
	labels := map[string]string{"app": "web"}
	_, err := deps.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(1), sc.Spec.Replicas)
	updated, err := deps.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, ResourceVersion: sc.ResourceVersion}, Spec: autoscalingv1.ScaleSpec{Replicas: 4}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(4), updated.Spec.Replicas)
	d, err := deps.Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(4), *d.Spec.Replicas)
}

// TestAPIExtensionsCreatesCRD creates a CustomResourceDefinition with the
// apiextensions clientset (protobuf bodies) and waits for it to be
// established.
func TestAPIExtensionsCreatesCRD(t *testing.T) {
	tgt := target.Get(t)
	ctx := t.Context()
	cs, err := apiextensionsclient.NewForConfig(tgt.RESTConfig(t))
	require.NoError(t, err)
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	name := "gadgets.protobuf.example.com"
	t.Cleanup(func() { _ = crds.Delete(ctx, name, metav1.DeleteOptions{}) })
	crd, err := crds.Create(ctx, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "protobuf.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":  {Type: "integer", Minimum: ptr.To(1.0), Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
							"tags":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
							"extra": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
						}},
					},
				}},
			}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	assert.Equal(t, "3", string(spec.Properties["size"].Default.Raw))
	assert.Equal(t, "string", spec.Properties["tags"].Items.Schema.Type)
	assert.Equal(t, "string", spec.Properties["extra"].AdditionalProperties.Schema.Type)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		got, err := crds.Get(ctx, name, metav1.GetOptions{})
		if !assert.NoError(c, err) {
			return
		}
		established := false
		for _, cond := range got.Status.Conditions {
			established = established || cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
		}
		assert.True(c, established, "conditions %v", got.Status.Conditions)
	}, 30*time.Second, 20*time.Millisecond)
}
