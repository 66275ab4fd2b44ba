package main

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// Example runs the controller against the bundled fake API server, which
// starts with the namespaces default, kube-system, kube-public and
// kube-node-lease: a source in default is copied into the three others.
func Example() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	if err := srv.Start(); err != nil {
		panic(err)
	}
	defer srv.Close()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL()})
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	src := &ConfigMap{
		ObjectMeta: meta.ObjectMeta{Name: "settings", Labels: map[string]string{SourceLabel: "true"}},
		Data:       map[string]string{"color": "red"},
	}
	if err := c.Post().Namespace("default").Resource("configmaps").Body(src).Do(ctx).Error(); err != nil {
		panic(err)
	}

	f := informer.NewFactory(c, informer.FactoryOptions{})
	ctrl, err := NewController(c, f, Options{})
	if err != nil {
		panic(err)
	}
	// The same Spec returns the controller's informer: watch the copies
	// appear without a second watch.
	cms, err := informer.For(f, informer.Spec[*ConfigMap]{
		Source:    reflector.Source{Resource: "configmaps"},
		Transform: informer.DropManagedFields[*ConfigMap](),
	})
	if err != nil {
		panic(err)
	}
	copies := make(chan string, 10)
	_, err = cms.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{AddFunc: func(cm *ConfigMap, _ bool) {
		if of, ok := copyOf(cm); ok {
			copies <- fmt.Sprintf("%s/%s is a copy of %s: color=%s", cm.Namespace, cm.Name, of, cm.Data["color"])
		}
	}}, informer.HandlerOptions{})
	if err != nil {
		panic(err)
	}

	var wg sync.WaitGroup
	wg.Go(func() { _ = f.Run(ctx) })
	wg.Go(func() { _ = ctrl.Run(ctx, 2) })
	var got []string
	for range 3 {
		got = append(got, <-copies)
	}
	slices.Sort(got)
	for _, line := range got {
		fmt.Println(line)
	}
	cancel()
	wg.Wait()
	// Output:
	// kube-node-lease/settings is a copy of default/settings: color=red
	// kube-public/settings is a copy of default/settings: color=red
	// kube-system/settings is a copy of default/settings: color=red
}
