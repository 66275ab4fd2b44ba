package informer_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// ExampleInformer_Gone deletes the CRD of the resource an informer
// watches, then creates it again with a new object: the informer reports
// the resource gone (once), waits, and refills its cache when it is back.
// Then the factory releases the informer, leaving no watch behind.
func ExampleInformer_Gone() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	c, stop := connect(srv)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	createCRD := func() {
		err := c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").
			Body([]byte(widgetCRD)).SetHeader("Content-Type", "application/json").Do(ctx).Error()
		if err != nil {
			panic(err)
		}
	}
	createWidget := func(name string) {
		w := &Widget{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "example.com/v1"}, ObjectMeta: meta.ObjectMeta{Name: name}}
		if err := c.Post().Group("example.com").Version("v1").Namespace("default").Resource("widgets").Body(w).Do(ctx).Error(); err != nil {
			panic(err)
		}
	}
	createCRD()
	createWidget("first")

	// The trace hook sees every state; this one tells when the resource
	// is found gone. OnError hears of it once, however long it lasts.
	gone := make(chan struct{}, 1)
	var reported atomic.Int32
	f := informer.NewFactory(c, informer.FactoryOptions{
		Reflector: reflector.Options{
			// Probe a gone resource every 50ms at most (2 minutes by default).
			Backoff:             reflector.Backoff{Initial: 10 * time.Millisecond},
			ResourceGoneMaxWait: 50 * time.Millisecond,
			Trace: func(ev reflector.TraceEvent) {
				if sc, ok := ev.(reflector.StateChanged); ok {
					if _, ok := sc.To.(reflector.ResourceGone); ok {
						select {
						case gone <- struct{}{}:
						default:
						}
					}
				}
			},
		},
		OnError: func(err error) {
			if rest.IsNotFound(err) {
				reported.Add(1)
			}
		},
	})
	spec := informer.Spec[*Widget]{Source: reflector.Source{Resource: "example.com/v1/widgets"}}
	inf, err := informer.For(f, spec)
	if err != nil {
		panic(err)
	}
	events := make(chan string, 10)
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*Widget]{
		AddFunc:    func(w *Widget, _ bool) { events <- "add " + w.Name },
		DeleteFunc: func(w *Widget, _ bool) { events <- "delete " + w.Name },
	}, informer.HandlerOptions{}); err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- f.Run(ctx) }()
	fmt.Println(<-events)

	if err := c.Delete().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("widgets.example.com").Do(ctx).Error(); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	<-gone
	var ge *reflector.GoneError
	fmt.Println("sync status says gone:", errors.As(inf.SyncError(), &ge))

	createCRD()
	createWidget("second")
	fmt.Println(<-events)

	if _, err := informer.Release(ctx, f, spec); err != nil {
		panic(err)
	}
	if err := srv.AwaitWatchers(ctx, fakeapiserver.Match{Resource: "widgets"}, func(n int) bool { return n == 0 }); err != nil {
		panic(err)
	}
	fmt.Println("watches left: 0; 404s reported:", reported.Load())
	cancel()
	<-done
	// Output:
	// add first
	// delete first
	// sync status says gone: true
	// add second
	// watches left: 0; 404s reported: 1
}
