package clientgo

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

func TestMain(m *testing.M) { os.Exit(target.Main(m)) }

// TestTypedCRUD: create, get, list, update, patch, delete through a typed
// clientset, and the error classes client-go users test for.
func TestTypedCRUD(t *testing.T) {
	tgt := target.Get(t)
	ns := tgt.Namespace(t)
	ctx := t.Context()
	cms := typedClient(t).CoreV1().ConfigMaps(ns)

	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, created.UID)
	assert.NotEmpty(t, created.ResourceVersion)
	assert.False(t, created.CreationTimestamp.IsZero())

	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	assert.True(t, apierrors.IsAlreadyExists(err), "second create: %v", err)

	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, created.ResourceVersion, got.ResourceVersion)

	_, err = cms.Get(ctx, "missing", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get missing: %v", err)

	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "a", list.Items[0].Name)

	got.Data["k"] = "2"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, got.ResourceVersion, updated.ResourceVersion)

	_, err = cms.Update(ctx, got, metav1.UpdateOptions{}) // got's resourceVersion is stale now
	assert.True(t, apierrors.IsConflict(err), "stale update: %v", err)

	patched, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"m":"1"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"k": "2", "m": "1"}, patched.Data)

	patched, err = cms.Patch(ctx, "a", types.JSONPatchType, []byte(`[{"op":"remove","path":"/data/m"}]`), metav1.PatchOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"k": "2"}, patched.Data)

	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}}, metav1.CreateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "invalid name: %v", err)

	require.NoError(t, cms.Delete(ctx, "a", metav1.DeleteOptions{}))
	_, err = cms.Get(ctx, "a", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get after delete: %v", err)
}

// TestServerSideApply applies a ConfigMap with the typed client's Apply,
// then shows a conflict with another manager and forces it.
func TestServerSideApply(t *testing.T) {
	tgt := target.Get(t)
	ns := tgt.Namespace(t)
	ctx := t.Context()
	cms := typedClient(t).CoreV1().ConfigMaps(ns)
	ac := corev1ac.ConfigMap("s", ns).WithData(map[string]string{"a": "1"})
	got, err := cms.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "e2e-one"})
	require.NoError(t, err)
	assert.Equal(t, "1", got.Data["a"])
	_, err = cms.Apply(ctx, corev1ac.ConfigMap("s", ns).WithData(map[string]string{"a": "2"}), metav1.ApplyOptions{FieldManager: "e2e-two"})
	assert.True(t, apierrors.IsConflict(err), "apply by another manager: %v", err)
	got, err = cms.Apply(ctx, corev1ac.ConfigMap("s", ns).WithData(map[string]string{"a": "2"}), metav1.ApplyOptions{FieldManager: "e2e-two", Force: true})
	require.NoError(t, err)
	assert.Equal(t, "2", got.Data["a"])
}

// TestEventRecorder records events through client-go's broadcaster; a
// repeated event is merged into one Event with a count (a strategic merge
// patch), where the server can.
func TestEventRecorder(t *testing.T) {
	tgt := target.Get(t)
	ns := tgt.Namespace(t)
	ctx := t.Context()
	cs := typedClient(t)
	obj, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "subject"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	w, err := cs.CoreV1().Events(ns).Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()

	b := record.NewBroadcaster(record.WithContext(ctx))
	defer b.Shutdown()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events(ns)})
	rec := b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubecache-e2e"})

	want := int32(3)
	if tgt.Kind == target.Fake {
		// Merging repeats needs a strategic merge patch.
		want = 1
	}
	for range want {
		rec.Event(obj, corev1.EventTypeNormal, "Tested", "kubecache e2e")
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "event watch ended")
			e, isEvent := ev.Object.(*corev1.Event)
			if ev.Type == watch.Error || !isEvent {
				t.Fatalf("event watch: %v %#v", ev.Type, ev.Object)
			}
			assert.Equal(t, "subject", e.InvolvedObject.Name)
			assert.Equal(t, "Tested", e.Reason)
			if e.Count >= want {
				return
			}
		case <-timeout:
			t.Fatalf("no Event with count %d within 60s", want)
		}
	}
}

// TestLeaderElection runs client-go's leader election on a Lease: it
// acquires (GET 404, POST), renews (PUT) and releases on cancel
// (holderIdentity "").
func TestLeaderElection(t *testing.T) {
	tgt := target.Get(t)
	ns := tgt.Namespace(t)
	cs := typedClient(t)
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: "e2e-leader", Namespace: ns},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: "e2e-one"},
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	leading := make(chan struct{})
	done := make(chan struct{})
	el, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     200 * time.Millisecond,
		ReleaseOnCancel: true,
		Name:            "e2e",
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { close(leading) },
			OnStoppedLeading: func() {},
		},
	})
	require.NoError(t, err)
	go func() {
		defer close(done)
		el.Run(ctx)
	}()
	select {
	case <-leading:
	case <-time.After(60 * time.Second):
		t.Fatal("not leading within 60s")
	}
	lease, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), "e2e-leader", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, lease.Spec.HolderIdentity)
	assert.Equal(t, "e2e-one", *lease.Spec.HolderIdentity)

	// Watch the renewals: the holder keeps the lease fresh with PUTs.
	w, err := cs.CoordinationV1().Leases(ns).Watch(t.Context(), metav1.ListOptions{FieldSelector: "metadata.name=e2e-leader", ResourceVersion: lease.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		require.Equal(t, watch.Modified, ev.Type, "renewal: %#v", ev.Object)
	case <-time.After(60 * time.Second):
		t.Fatal("no renewal within 60s")
	}

	cancel()
	<-done
	lease, err = cs.CoordinationV1().Leases(ns).Get(t.Context(), "e2e-leader", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "", ptrString(lease.Spec.HolderIdentity), "released lease")
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
