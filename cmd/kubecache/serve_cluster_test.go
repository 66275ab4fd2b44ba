package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
	"github.com/kubecache/kubecache/watch"
)

// TestServeClusterWithKubectl runs "kubecache serve --controllers=all
// --nodes=3" and drives it with kubectl as a user would: a Deployment
// rolls out, scales, rolls to a new image and back, a crashing image
// shows CrashLoopBackOff, a Job completes, a StatefulSet rolls out in order, to a new image
// and back, and a new namespace gets its
// default ServiceAccount.
func TestServeClusterWithKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed; skipping the kubectl check of kubecache serve --controllers")
	}
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, _ := serveReady(t, "--kubeconfig-out", kc, "--controllers=all", "--nodes=3")
	b.stdout.waitFor(t, "the controllers line", func(s string) bool { return strings.Contains(s, "3 simulated nodes") })
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", t.TempDir()}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
		return string(out)
	}
	awaitOutput := func(what string, cond func(string) bool, args ...string) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			out := run(args...)
			if cond(out) {
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; last output:\n%s", what, out)
			}
			// kubectl has no watch for a printed column: ask again.
			time.Sleep(200 * time.Millisecond)
		}
	}

	// kubectl create sends protobuf, which the fake server does not read
	// yet: the objects are applied from manifests instead.
	manifest := func(name, body string) string {
		p := filepath.Join(t.TempDir(), name+".yaml")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	deployment := func(name, image string, replicas int) string {
		return manifest(name, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: default, labels: {app: %s}}
spec:
  replicas: %d
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec: {containers: [{name: nginx, image: %s}]}
`, name, name, replicas, name, name, image))
	}
	run("apply", "-f", deployment("web", "nginx", 3))
	assert.Contains(t, run("rollout", "status", "deployment/web", "--timeout=60s"), `deployment "web" successfully rolled out`)
	assert.Contains(t, run("wait", "--for=condition=Available", "deployment/web", "--timeout=60s"), "condition met")
	assert.Equal(t, "3", strings.Trim(run("get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}"), "'"))
	assert.Equal(t, 3, strings.Count(run("get", "pods", "-l", "app=web", "--no-headers"), "Running"))

	run("scale", "deployment/web", "--replicas=5")
	assert.Contains(t, run("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	assert.Equal(t, "5", run("get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}"))

	run("set", "image", "deployment/web", "nginx=nginx:1.27")
	assert.Contains(t, run("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	assert.Equal(t, "2", run("get", "deployment", "web", "-o", `jsonpath={.metadata.annotations.deployment\.kubernetes\.io/revision}`))
	run("rollout", "undo", "deployment/web")
	assert.Contains(t, run("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	assert.Equal(t, "nginx", run("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"))
	assert.Equal(t, "3", run("get", "deployment", "web", "-o", `jsonpath={.metadata.annotations.deployment\.kubernetes\.io/revision}`))

	run("apply", "-f", deployment("boom", "example/crash", 1))
	awaitOutput("CrashLoopBackOff", func(s string) bool { return strings.Contains(s, "CrashLoopBackOff") }, "get", "pods", "-l", "app=boom")

	run("apply", "-f", manifest("pi", `apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: default}
spec:
  completions: 2
  template:
    spec: {restartPolicy: Never, containers: [{name: pi, image: busybox}]}
`))
	assert.Contains(t, run("wait", "--for=condition=Complete", "job/pi", "--timeout=60s"), "condition met")
	assert.Equal(t, "2", run("get", "job", "pi", "-o", "jsonpath={.status.succeeded}"))

	first := strings.Fields(run("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].metadata.name}"))
	require.NotEmpty(t, first)
	assert.NotEmpty(t, strings.TrimSpace(run("logs", first[0])), "kubectl logs of a simulated pod")

	run("apply", "-f", manifest("db", `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: nginx}]}
`))
	assert.Contains(t, run("rollout", "status", "statefulset/db", "--timeout=60s"), "partitioned roll out complete: 3 new pods have been updated")
	assert.Equal(t, "db-0 db-1 db-2", run("get", "pods", "-l", "app=db", "-o", "jsonpath={.items[*].metadata.name}"))
	run("set", "image", "statefulset/db", "db=nginx:1.27")
	assert.Contains(t, run("rollout", "status", "statefulset/db", "--timeout=60s"), "partitioned roll out complete: 3 new pods have been updated")
	run("rollout", "undo", "statefulset/db")
	assert.Contains(t, run("rollout", "status", "statefulset/db", "--timeout=60s"), "partitioned roll out complete: 3 new pods have been updated")
	assert.Equal(t, "nginx nginx nginx", run("get", "pods", "-l", "app=db", "-o", "jsonpath={.items[*].spec.containers[0].image}"))

	run("apply", "-f", manifest("shop", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"))
	awaitOutput("the default ServiceAccount", func(s string) bool { return strings.Contains(s, "serviceaccount/default") }, "get", "serviceaccounts", "-n", "shop", "-o", "name")
	require.NoError(t, b.stop())
}

// TestServeLeaderElection runs "kubecache serve --leader-elect": the
// controllers take the kube-system/kube-controller-manager Lease and
// run under it (a new namespace gets its default ServiceAccount); when
// another holder takes the Lease, serve stops with the loss.
func TestServeLeaderElection(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	b, _ := serveReady(t, "--kubeconfig-out", kc, "--controllers=serviceaccount", "--leader-elect",
		"--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=100ms")
	b.stdout.waitFor(t, "the controllers line", func(s string) bool {
		return strings.Contains(s, "controllers serviceaccount, 0 simulated nodes, leader election on Lease kube-system/kube-controller-manager")
	})
	client := kubeconfigClient(t, kc)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	leases := func() *rest.Request {
		return client.Get().Group("coordination.k8s.io").Version("v1").Namespace("kube-system").Resource("leases")
	}
	held := awaitWatched(t, ctx, leases(), "the Lease held", func(l *leaderelection.Lease) bool {
		return l.Name == "kube-controller-manager" && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != ""
	})
	host, _ := os.Hostname()
	assert.True(t, strings.HasPrefix(*held.Spec.HolderIdentity, host+"_"), "holder %q", *held.Spec.HolderIdentity)
	require.NoError(t, client.Post().Resource("namespaces").Body(map[string]any{"metadata": map[string]any{"name": "shop"}}).Do(ctx).Error())
	awaitWatched(t, ctx, client.Get().Namespace("shop").Resource("serviceaccounts"), "the default ServiceAccount", func(sa *meta.Unstructured) bool {
		return sa.GetObjectMeta().Name == "default"
	})

	// Another holder takes the Lease (the leader renews it every 100ms,
	// so the write may have to be tried again).
	for attempt := 0; ; attempt++ {
		var l leaderelection.Lease
		require.NoError(t, leases().Name("kube-controller-manager").Do(ctx).Into(&l))
		intruder, hour := "intruder", int32(3600)
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = &intruder, &hour
		l.ManagedFields = nil
		err := client.Put().Group("coordination.k8s.io").Version("v1").Namespace("kube-system").Resource("leases").Name("kube-controller-manager").Body(&l).Do(ctx).Error()
		if err == nil {
			break
		}
		require.True(t, rest.IsConflict(err) && attempt < 100, "take the Lease: %v", err)
	}
	err := b.wait()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "controllers stopped: leader election lease lost")
}

// awaitWatched watches what r lists until an object added or changed
// satisfies cond, and returns it.
func awaitWatched[T meta.Object](t *testing.T, ctx context.Context, r *rest.Request, what string, cond func(T) bool) T {
	t.Helper()
	w, err := rest.WatchAs[T](ctx, r)
	require.NoError(t, err, "watch for %s", what)
	defer w.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "the watch for %s ended", what)
			if (ev.Type == watch.Added || ev.Type == watch.Modified) && cond(ev.Object) {
				return ev.Object
			}
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
