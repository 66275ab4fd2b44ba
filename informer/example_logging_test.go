package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/reflector"
)

// Example_logging gives an informer a logger through the context of Run:
// every line, its reflector's too, names the informer, the resource and
// the namespaces. Without a logger an informer writes nothing.
func Example_logging() {
	srv := fakeapiserver.New(fakeapiserver.Options{})
	c, stop := connect(srv)
	defer stop()
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: "kube-system"})
	if err != nil {
		panic(err)
	}
	inf, err := informer.New(lw, informer.Options[*ConfigMap]{Name: "system-config"})
	if err != nil {
		panic(err)
	}

	// Only the "synced" line, without what changes from run to run.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	})).With("controller", "example")
	onlySynced := slog.New(filterHandler{logger.Handler(), "synced"})

	ctx, cancel := context.WithCancel(reflector.WithLogger(context.Background(), onlySynced))
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		panic(err)
	}
	cancel()
	<-done
	fmt.Println("stopped")
	// Output:
	// level=INFO msg=synced controller=example informer=system-config resource=configmaps namespaces=kube-system objects=0
	// stopped
}

// filterHandler passes on the records with one message.
type filterHandler struct {
	slog.Handler
	msg string
}

func (h filterHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != h.msg {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h filterHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return filterHandler{h.Handler.WithAttrs(as), h.msg}
}

func (h filterHandler) WithGroup(name string) slog.Handler {
	return filterHandler{h.Handler.WithGroup(name), h.msg}
}
