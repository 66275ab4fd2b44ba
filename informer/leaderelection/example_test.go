package leaderelection_test

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer/leaderelection"
	"github.com/kubecache/kubecache/rest"
)

// Example runs one candidate: it creates the Lease, leads until it is told
// to stop, and releases the Lease on the way out.
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

	e, err := leaderelection.New(leaderelection.Config{
		Client: c, Namespace: "default", Name: "my-controller", Identity: "pod-a",
		OnNewLeader: func(id string) { fmt.Printf("leader is now %q\n", id) },
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = e.Run(ctx, func(ctx context.Context) {
		fmt.Println("leading: start the workers here")
		cancel() // a real controller runs until ctx is cancelled
		<-ctx.Done()
	})
	fmt.Println("run:", err)
	// Output:
	// leader is now "pod-a"
	// leading: start the workers here
	// leader is now ""
	// run: <nil>
}
