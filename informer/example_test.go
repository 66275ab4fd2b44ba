package informer_test

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// ConfigMap declares only the fields this program reads: TypeMeta inline,
// ObjectMeta under "metadata", then the rest.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// connect starts srv and returns a client of it, and the function that
// closes both.
func connect(srv *fakeapiserver.Server) (c *rest.Client, stop func()) {
	if err := srv.Start(); err != nil {
		panic(err)
	}
	c, err := rest.NewClient(&rest.Config{Host: srv.URL()})
	if err != nil {
		srv.Close()
		panic(err)
	}
	return c, func() {
		c.CloseIdleConnections()
		srv.Close()
	}
}

// Example runs an informer against the bundled fake API server: the
// handler hears about the object that exists, then about each change, and
// the lister answers reads from the cache.
func Example() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	c, stop := connect(srv)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	settings := &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "settings"}, Data: map[string]string{"color": "red"}}
	if err := c.Post().Namespace("default").Resource("configmaps").Body(settings).Do(ctx).Into(settings); err != nil {
		panic(err)
	}

	// An informer for the configmaps of one namespace, without the
	// managedFields nobody here reads.
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: "default"})
	if err != nil {
		panic(err)
	}
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{Transform: informer.DropManagedFields[*ConfigMap]()})
	if err != nil {
		panic(err)
	}
	events := make(chan string)
	_, err = inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{
		AddFunc: func(cm *ConfigMap, initial bool) {
			events <- fmt.Sprintf("add %s color=%s initial=%t", meta.Key(cm), cm.Data["color"], initial)
		},
		UpdateFunc: func(_, cm *ConfigMap) {
			events <- fmt.Sprintf("update %s color=%s", meta.Key(cm), cm.Data["color"])
		},
		DeleteFunc: func(cm *ConfigMap, _ bool) { events <- "delete " + meta.Key(cm) },
	}, informer.HandlerOptions{})
	if err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		panic(err)
	}
	fmt.Println(<-events)

	settings.Data["color"] = "blue"
	if err := c.Put().Namespace("default").Resource("configmaps").Name("settings").Body(settings).Do(ctx).Into(settings); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	cached, err := inf.Lister().Namespace("default").Get("settings")
	if err != nil {
		panic(err)
	}
	fmt.Println("lister:", cached.Data["color"], "managedFields:", len(cached.ManagedFields))

	if err := c.Delete().Namespace("default").Resource("configmaps").Name("settings").Do(ctx).Error(); err != nil {
		panic(err)
	}
	fmt.Println(<-events)

	cancel()
	fmt.Println("run:", <-done)
	// Output:
	// add default/settings color=red initial=true
	// update default/settings color=blue
	// lister: blue managedFields: 0
	// delete default/settings
	// run: <nil>
}
