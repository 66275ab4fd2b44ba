package disruption_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/internal/await"
)

// TestKubectlDrainWithinBudget drains the node that runs most of a
// Deployment's three pods under a budget of maxUnavailable 1: kubectl
// evicts one pod, is refused the others with the real server's message
// and retries, and completes once each replacement (on the other node)
// turns Ready, which happens only when the test moves the cluster's
// clock.
func TestKubectlDrainWithinBudget(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed; skipping the kubectl drain check of the disruption controller")
	}
	c, clock := start(t)
	ctx := context.Background()
	require.NoError(t, kit.Create(ctx, c.Client, deployments, deployment("web", 3), nil))
	require.NoError(t, kit.Create(ctx, c.Client, pdbs, budget("web", map[string]any{"maxUnavailable": 1}), nil))
	running := awaitRunning(t, c, "web", 3)
	clock.Step(readyAfter)
	awaitCounts(t, c, "web", counts{Expected: 3, Desired: 2, Current: 3, Allowed: 1, Condition: "True/SufficientPods"})

	perNode := map[string]int{}
	for _, p := range running {
		perNode[p.Spec.NodeName]++
	}
	drained := "node-1"
	if perNode["node-2"] > perNode["node-1"] {
		drained = "node-2"
	}
	require.GreaterOrEqual(t, perNode[drained], 2, "pods per node: %v", perNode)

	runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(runCtx, kubectl, "--kubeconfig", c.Kubeconfig, "--cache-dir", t.TempDir(),
		"drain", drained, "--ignore-daemonsets", "--timeout=110s")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr await.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// No replacement can turn Ready before the clock moves, so kubectl
	// is refused at least once: wait for its retry line first.
	refused := "Cannot evict pod as it would violate the pod's disruption budget."
	for {
		s, next := stderr.State()
		if strings.Contains(s, refused) {
			break
		}
		select {
		case <-next:
		case err := <-exited:
			out, _ := stdout.State()
			t.Fatalf("kubectl drain ended (%v) before a refusal; stdout:\n%s\nstderr:\n%s", err, out, s)
		case <-runCtx.Done():
			t.Fatalf("no refusal from kubectl drain; stderr:\n%s", s)
		}
	}
	// Then let each replacement turn Ready in turn until kubectl is done.
	var exitErr error
	for done := false; !done; {
		replacement := ""
		ok := cluster.Watch(t, c, "pods", func(wctx context.Context, inf *informer.Informer[*api.Pod], changed func() <-chan struct{}) bool {
			for {
				ch := changed()
				for _, p := range inf.Indexer().List() {
					if p.Labels["app"] == "web" && p.DeletionTimestamp == nil && p.Spec.NodeName != drained &&
						p.Status.Phase == api.PodRunning && !api.IsPodReady(p) {
						replacement = p.Name
						return true
					}
				}
				select {
				case <-ch:
				case exitErr = <-exited:
					done = true
					return true
				case <-wctx.Done():
					return false
				}
			}
		})
		require.True(t, ok, "neither a replacement to make Ready nor the end of kubectl drain")
		if done {
			break
		}
		clock.Step(readyAfter)
		cluster.AwaitNamed(t, c, "pods", "default", replacement, replacement+" Ready", api.IsPodReady)
	}
	out, _ := stdout.State()
	errOut, _ := stderr.State()
	require.NoError(t, exitErr, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Contains(t, out, "node/"+drained+" cordoned")
	assert.Contains(t, out, "node/"+drained+" drained")
	assert.Equal(t, perNode[drained], strings.Count(out, " evicted\n"), "stdout:\n%s", out)
	assert.Contains(t, errOut, "(will retry after 5s): "+refused)

	final := awaitRunning(t, c, "web", 3)
	for _, p := range final {
		assert.NotEqual(t, drained, p.Spec.NodeName, "pod %s", p.Name)
	}
}
