package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/rest"
)

// workload writes to the demo's server: it creates, updates and deletes
// ConfigMaps in the demo namespace, and moves a ConfigMap elsewhere when a
// fault needs the server's resourceVersion to move on unseen.
//
// setUp runs before anything else starts; then run (and step, create,
// delete) belong to the workload's goroutine, and tick, with the ticks
// counter, to the fault goroutine. The client is safe for concurrent use.
type workload struct {
	client *rest.Client
	con    *console
	rng    *rand.Rand
	// names are the ConfigMaps that exist, in creation order; next numbers
	// the next one.
	names []string
	next  int
	ticks int
	// tl starts the workload's lines; set before run.
	tl timeline
	// perSecond is the rate of writes (float64 bits), which the web
	// page's slider may change while run runs; rateChanged wakes run.
	perSecond   atomic.Uint64
	rateChanged chan struct{}
}

func newWorkload(client *rest.Client, con *console, seed int64) *workload {
	return &workload{client: client, con: con, rng: rand.New(rand.NewPCG(uint64(seed), 0x6b75626563616368)), rateChanged: make(chan struct{}, 1)}
}

// Bounds of the workload's population.
const (
	minObjects = 5
	maxObjects = 60
)

// setUp creates the demo namespace, n ConfigMaps in it, and the clock
// ConfigMap tick updates.
func (w *workload) setUp(ctx context.Context, n int) error {
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": demoNamespace}}
	if err := w.client.Post().Resource("namespaces").Body(ns).Do(ctx).Error(); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	for range n {
		if _, err := w.create(ctx); err != nil {
			return err
		}
	}
	clock := configMap("kube-public", "demo-clock", map[string]string{"ticks": "0"})
	if err := w.client.Post().Namespace("kube-public").Resource("configmaps").Body(clock).Do(ctx).Error(); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// rate returns the writes per second.
func (w *workload) rate() float64 { return math.Float64frombits(w.perSecond.Load()) }

// setRate changes the writes per second, from any goroutine.
func (w *workload) setRate(perSecond float64) {
	w.perSecond.Store(math.Float64bits(perSecond))
	select {
	case w.rateChanged <- struct{}{}:
	default:
	}
}

// run writes at the workload's rate until ctx ends.
func (w *workload) run(ctx context.Context) {
	for {
		var tick <-chan time.Time
		stop := func() bool { return false }
		if r := w.rate(); r > 0 {
			t := time.NewTimer(time.Duration(float64(time.Second) / r))
			tick, stop = t.C, t.Stop
		}
		select {
		case <-ctx.Done():
			stop()
			return
		case <-w.rateChanged:
			stop()
			continue
		case <-tick:
		}
		if err := w.step(ctx); err != nil && ctx.Err() == nil {
			w.con.errf("%s%v", w.tl.prefix("workload"), err)
		}
	}
}

// step makes one write — a create, an update or a delete — and says what
// it is about to do before doing it, so that its line comes before the
// reflector's and the handler's.
func (w *workload) step(ctx context.Context) error {
	n := len(w.names)
	r := w.rng.IntN(10)
	say := func(what string) { w.con.outf("%s%s", w.tl.prefix("workload"), what) }
	switch {
	case n < minObjects || (r < 3 && n < maxObjects):
		say(fmt.Sprintf("create %s/cm-%03d", demoNamespace, w.next+1))
		_, err := w.create(ctx)
		return err
	case r < 6:
		name := w.names[w.rng.IntN(n)]
		say("delete " + demoNamespace + "/" + name)
		return w.delete(ctx, name)
	}
	name := w.names[w.rng.IntN(n)]
	value := strconv.Itoa(w.rng.IntN(1000))
	say("update " + demoNamespace + "/" + name + " value=" + value)
	patch, _ := json.Marshal(map[string]any{"data": map[string]string{"value": value}})
	return w.client.Patch(rest.MergePatchType).Namespace(demoNamespace).Resource("configmaps").Name(name).Body(patch).Do(ctx).Error()
}

// create makes the next ConfigMap.
func (w *workload) create(ctx context.Context) (string, error) {
	w.next++
	name := fmt.Sprintf("cm-%03d", w.next)
	cm := configMap(demoNamespace, name, map[string]string{"value": strconv.Itoa(w.rng.IntN(1000))})
	if err := w.client.Post().Namespace(demoNamespace).Resource("configmaps").Body(cm).Do(ctx).Error(); err != nil {
		return name, err
	}
	w.names = append(w.names, name)
	return name, nil
}

// delete removes a ConfigMap.
func (w *workload) delete(ctx context.Context, name string) error {
	err := w.client.Delete().Namespace(demoNamespace).Resource("configmaps").Name(name).Do(ctx).Error()
	if err == nil || rest.IsNotFound(err) {
		w.names = slices.DeleteFunc(w.names, func(n string) bool { return n == name })
	}
	return err
}

// tick updates a ConfigMap outside the demo namespace: the server's
// resourceVersion moves on without the informer seeing an event.
func (w *workload) tick(ctx context.Context) error {
	w.ticks++
	patch, _ := json.Marshal(map[string]any{"data": map[string]string{"ticks": strconv.Itoa(w.ticks)}})
	return w.client.Patch(rest.MergePatchType).Namespace("kube-public").Resource("configmaps").Name("demo-clock").Body(patch).Do(ctx).Error()
}

// configMap builds a ConfigMap.
func configMap(namespace, name string, data map[string]string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"data":     data,
	}
}
