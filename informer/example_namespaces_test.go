package informer_test

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

// ExampleMultiNamespaceInformer caches ConfigMaps of two namespaces out of
// three, one watch each, in one cache with one handler; then a third
// namespace joins the set and the first leaves it.
func ExampleMultiNamespaceInformer() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	c, stop := connect(srv)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"red", "green", "blue"} {
		n := &Namespace{ObjectMeta: meta.ObjectMeta{Name: ns}}
		if err := c.Post().Resource("namespaces").Body(n).Do(ctx).Error(); err != nil {
			panic(err)
		}
		cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "settings"}}
		if err := c.Post().Namespace(ns).Resource("configmaps").Body(cm).Do(ctx).Error(); err != nil {
			panic(err)
		}
	}

	inf, err := informer.NewMultiNamespace(c, reflector.Source{Resource: "configmaps"}, informer.MultiNamespaceOptions[*ConfigMap]{
		Namespaces: []string{"red", "green"},
	})
	if err != nil {
		panic(err)
	}
	events := make(chan string, 10)
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, initial bool) { events <- fmt.Sprintf("add %s (initial %v)", meta.Key(cm), initial) },
		DeleteFunc: func(cm *ConfigMap, unknown bool) {
			events <- fmt.Sprintf("delete %s (final state unknown %v)", meta.Key(cm), unknown)
		},
	}, informer.HandlerOptions{}); err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		panic(err)
	}
	first := []string{<-events, <-events}
	if first[0] > first[1] {
		first[0], first[1] = first[1], first[0]
	}
	fmt.Println(first[0])
	fmt.Println(first[1])

	if err := inf.AddNamespace("blue"); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	if err := inf.RemoveNamespace(ctx, "red"); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	for _, st := range inf.Namespaces() {
		fmt.Println(st.Namespace, "synced:", st.Synced)
	}
	cancel()
	<-done
	// Output:
	// add green/settings (initial true)
	// add red/settings (initial true)
	// add blue/settings (initial false)
	// delete red/settings (final state unknown true)
	// blue synced: true
	// green synced: true
}
