package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/meta"
)

func TestMirrorFollowsTheSource(t *testing.T) {
	cl := newCluster(t)
	cl.createNamespace("team-a")
	src := cl.put(source("default", "settings", map[string]string{"color": "red"}))
	cl.start()

	// Copied into every other namespace.
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "red"})

	// A change of the source reaches every copy.
	src.Data = map[string]string{"color": "blue"}
	src = cl.put(src)
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "blue"})

	// A new namespace gets a copy.
	cl.createNamespace("team-b")
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "blue"})
	assert.Contains(t, cl.copies("default/settings"), "team-b")

	// A copy deleted or edited by hand is put back.
	cl.remove("team-a", "settings")
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "blue"})
	edited, err := cl.watch.Lister().Namespace("team-b").Get("settings")
	require.NoError(t, err)
	tampered := *edited
	tampered.Data = map[string]string{"color": "green"}
	cl.put(&tampered)
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "blue"})

	// Removing the label removes the copies; so does deleting the source.
	src.Labels = nil
	src = cl.put(src)
	cl.waitCopies("default/settings", nil, nil)
	src.Labels = map[string]string{SourceLabel: "true"}
	cl.put(src)
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "blue"})
	cl.remove("default", "settings")
	cl.waitCopies("default/settings", nil, nil)
}

func TestSomeoneElsesConfigMapIsNeverOverwritten(t *testing.T) {
	cl := newCluster(t)
	cl.createNamespace("team-a")
	theirs := cl.put(&ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "team-a", Name: "settings"}, Data: map[string]string{"owner": "team-a"}})
	cl.put(source("default", "settings", map[string]string{"color": "red"}))
	out := cl.start()

	others := cl.others("default")
	mirrored := []string{}
	for _, ns := range others {
		if ns != "team-a" {
			mirrored = append(mirrored, ns)
		}
	}
	cl.waitCopies("default/settings", mirrored, map[string]string{"color": "red"})
	got, err := cl.watch.Lister().Namespace("team-a").Get("settings")
	require.NoError(t, err)
	assert.Equal(t, theirs.ResourceVersion, got.ResourceVersion, "left alone")
	out.waitFor(t, "name taken")
}

// TestMirrorConvergesAfterFaults cuts the controller's watches while the
// source changes and a namespace appears, compacts the server's history
// so the watches cannot resume (410: the informers must list again), and
// fails some writes (the workqueue must retry): the copies still converge.
func TestMirrorConvergesAfterFaults(t *testing.T) {
	cl := newCluster(t)
	src := cl.put(source("default", "settings", map[string]string{"v": "1"}))
	out := cl.start()
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"v": "1"})
	// The controller's ConfigMap informer, and the test's own.
	require.NoError(t, cl.srv.WaitForWatchers(cl.ctx, "configmaps", 2))

	// The outage: no watch may open, the open ones are cut.
	cl.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch"}, Count: 1 << 20, Code: 503})
	cl.srv.CutWatches(fakeapiserver.Match{}, fakeapiserver.CutMidFrame)
	src.Data = map[string]string{"v": "2"}
	cl.put(src)
	cl.createNamespace("team-c")
	cl.srv.CompactNow()
	// The first creates and updates after the outage fail.
	cl.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "create", Resource: "configmaps"}, Count: 2, Code: 500})
	cl.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "update", Resource: "configmaps"}, Count: 2, Code: 500})
	// The test's own informer must see the result too: let watches
	// through again (the write faults stay until used).
	clearWatchFault(cl)

	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"v": "2"})
	assert.Contains(t, cl.copies("default/settings"), "team-c")
	out.waitFor(t, "reconcile failed; retrying")
}

// clearWatchFault removes the watch fault, keeping the write faults: the
// fake server clears all rules at once, so the write rules are put back.
func clearWatchFault(cl *cluster) {
	cl.srv.ClearFaults()
	cl.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "create", Resource: "configmaps"}, Count: 2, Code: 500})
	cl.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "update", Resource: "configmaps"}, Count: 2, Code: 500})
}

func TestLeaderElectedControllerMirrors(t *testing.T) {
	cl := newCluster(t)
	cl.put(source("default", "settings", map[string]string{"color": "red"}))
	cl.start("-leader-elect", "-identity", "copy-1")
	cl.waitCopies("default/settings", cl.others("default"), map[string]string{"color": "red"})
	var lease struct {
		Spec struct {
			HolderIdentity string `json:"holderIdentity"`
		} `json:"spec"`
	}
	require.NoError(t, cl.c.Get().Group("coordination.k8s.io").Namespace("default").Resource("leases").Name("configmap-mirror").Do(cl.ctx).Into(&lease))
	assert.Equal(t, "copy-1", lease.Spec.HolderIdentity)
}

func TestRunRejectsBadInvocations(t *testing.T) {
	var out bytes.Buffer
	ctx := context.Background()
	for _, args := range [][]string{
		{"--no-such-flag"},
		{"stray"},
		{"-workers", "0"},
		{"--kubeconfig", "/nonexistent/kubeconfig"},
	} {
		err := run(ctx, args, &out, &out)
		assert.Error(t, err, "%q", args)
	}
	err := run(ctx, []string{"--kubeconfig", "/nonexistent/kubeconfig"}, &out, &out)
	assert.ErrorContains(t, err, "/nonexistent/kubeconfig")
}
