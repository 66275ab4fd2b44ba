package informer_test

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
)

// ExampleInformer_WaitForFreshness writes an object and reads it back from
// the cache: WaitForFreshness returns once the cache reflects the write's
// resourceVersion, so the Lister cannot answer with an older state.
func ExampleInformer_WaitForFreshness() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	c, stop := connect(srv)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: "default"})
	if err != nil {
		panic(err)
	}
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{})
	if err != nil {
		panic(err)
	}
	lists := make(chan string, 1)
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{}, informer.HandlerOptions{
		OnSynced: func(string) { lists <- "the handler has the whole list" },
	})
	if err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	<-reg.Synced()
	fmt.Println(<-lists)

	cm := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "settings"}, Data: map[string]string{"color": "blue"}}
	if err := c.Post().Namespace("default").Resource("configmaps").Body(cm).Do(ctx).Into(cm); err != nil {
		panic(err)
	}
	if err := inf.WaitForFreshness(ctx, cm.ResourceVersion); err != nil {
		panic(err)
	}
	got, err := inf.Lister().Get("default/settings")
	if err != nil {
		panic(err)
	}
	fmt.Println("read from the cache: color =", got.Data["color"])
	cancel()
	<-done
	// Output:
	// the handler has the whole list
	// read from the cache: color = blue
}
