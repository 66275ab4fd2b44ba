package stack

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/e2e/internal/target"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// Gadget is the custom resource of the test of a resource that goes away.
type Gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
}

const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gadgets.e2e.kubecache.io"},
 "spec":{"group":"e2e.kubecache.io","scope":"Namespaced",
  "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

func crds(r *rest.Request) *rest.Request {
	return r.Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions")
}

// createGadgetCRD creates the CRD and waits until its resource is served.
func createGadgetCRD(t *testing.T, c *rest.Client) {
	t.Helper()
	require.NoError(t, crds(c.Post()).Body([]byte(gadgetCRD)).SetHeader("Content-Type", "application/json").Do(t.Context()).Error())
	awaitCond(t, "gadgets served", func() (bool, error) {
		err := c.Get().Group("e2e.kubecache.io").Version("v1").Resource("gadgets").Do(t.Context()).Error()
		return err == nil, err
	})
}

// deleteGadgetCRD deletes the CRD and waits until it is gone.
func deleteGadgetCRD(t *testing.T, c *rest.Client) {
	t.Helper()
	err := crds(c.Delete()).Name("gadgets.e2e.kubecache.io").Do(context.Background()).Error()
	if err != nil && !rest.IsNotFound(err) {
		t.Fatalf("delete the CRD: %v", err)
	}
	awaitCond(t, "the CRD gone", func() (bool, error) {
		err := crds(c.Get()).Name("gadgets.e2e.kubecache.io").Do(context.Background()).Error()
		return rest.IsNotFound(err), err
	})
}

func createGadget(t *testing.T, c *rest.Client, ns, name string) {
	t.Helper()
	g := &Gadget{TypeMeta: meta.TypeMeta{Kind: "Gadget", APIVersion: "e2e.kubecache.io/v1"}, ObjectMeta: meta.ObjectMeta{Name: name}}
	require.NoError(t, c.Post().Group("e2e.kubecache.io").Version("v1").Namespace(ns).Resource("gadgets").Body(g).Do(t.Context()).Error())
}

// TestInformerResourceGone deletes the CRD of a watched resource on the
// target and creates it again with other objects: the informer empties,
// says the resource is gone (reported once), and refills when it is back;
// then the factory releases it.
func TestInformerResourceGone(t *testing.T) {
	tg := target.Get(t)
	c := client(t)
	ns := tg.Namespace(t)
	deleteGadgetCRD(t, c) // a leftover of an interrupted run
	createGadgetCRD(t, c)
	t.Cleanup(func() { deleteGadgetCRD(t, c) })
	createGadget(t, c, ns, "first")

	goneStates := make(chan reflector.ResourceGone, 100)
	notFound := 0
	f := informer.NewFactory(c, informer.FactoryOptions{
		Reflector: reflector.Options{
			Backoff:             reflector.Backoff{Initial: 100 * time.Millisecond, Max: time.Second},
			ResourceGoneMaxWait: time.Second,
			Trace: func(ev reflector.TraceEvent) {
				if sc, ok := ev.(reflector.StateChanged); ok {
					if g, ok := sc.To.(reflector.ResourceGone); ok {
						select {
						case goneStates <- g:
						default:
						}
					}
				}
			},
		},
		OnError: func(err error) {
			if rest.IsNotFound(err) {
				notFound++ // OnError runs on the one reflector's goroutine
			}
		},
	})
	spec := informer.Spec[*Gadget]{Source: reflector.Source{Resource: "e2e.kubecache.io/v1/gadgets", Namespace: ns}}
	inf, err := informer.For(f, spec)
	require.NoError(t, err)
	ev := newEvents()
	_, err = inf.AddEventHandler(handler[*Gadget](ev), informer.HandlerOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	require.NoError(t, f.WaitForCacheSync(ctx))
	ev.await(t, "add "+ns+"/first")

	deleteGadgetCRD(t, c)
	ev.await(t, "delete "+ns+"/first")
	var first reflector.ResourceGone
	select {
	case first = <-goneStates:
	case <-time.After(90 * time.Second):
		t.Fatal("the informer never found the resource gone")
	}
	assert.Zero(t, first.Probes)
	var ge *reflector.GoneError
	assert.ErrorAs(t, inf.SyncError(), &ge, "the sync status says the resource is gone")
	select {
	case g := <-goneStates:
		assert.Equal(t, 1, g.Probes, "a failed probe, after a wait")
		assert.Equal(t, first.Since, g.Since)
	case <-time.After(90 * time.Second):
		t.Fatal("no probe")
	}

	createGadgetCRD(t, c)
	createGadget(t, c, ns, "second")
	ev.await(t, "add "+ns+"/second")
	awaitCond(t, "the informer out of ResourceGone", func() (bool, error) { return inf.Gone() == nil, inf.Gone() })
	assert.Equal(t, []string{ns + "/second"}, inf.Indexer().ListKeys())

	released, err := informer.Release(ctx, f, spec)
	require.NoError(t, err)
	assert.True(t, released)
	_, err = inf.AddEventHandler(handler[*Gadget](ev), informer.HandlerOptions{})
	assert.ErrorIs(t, err, informer.ErrStopped, "the released informer's Run has ended, its watch with it")
	assert.Equal(t, 1, notFound, "the resource gone is reported once")
}
