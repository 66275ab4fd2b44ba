package webview_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/internal/webview"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// testTimeout bounds every wait of a test.
const testTimeout = 60 * time.Second

// testNamespace is where the tests' ConfigMaps live.
const testNamespace = "web"

// ConfigMap is the tests' object type.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// env is a fake API server, an informer on its ConfigMaps wired to a web
// view, and the view served on a loopback listener.
type env struct {
	t    *testing.T
	ctx  context.Context
	srv  *fakeapiserver.Server
	c    *rest.Client
	inf  *informer.Informer[*ConfigMap]
	view *webview.View
	url  string
}

// envOptions shape an env.
type envOptions struct {
	objects  int
	backoff  reflector.Backoff
	controls func(*fakeapiserver.Server) webview.Controls
}

// newEnv starts everything and waits for the informer to sync. Cleanup
// stops it all and waits for it.
func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	srv := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	e := &env{t: t, ctx: ctx, srv: srv, c: c}
	e.createNamespace()
	for i := range o.objects {
		e.create(fmt.Sprintf("cm-%03d", i+1))
	}

	var controls webview.Controls
	if o.controls != nil {
		controls = o.controls(srv)
	}
	e.view, err = webview.New(webview.Options{Interval: 50 * time.Millisecond, Controls: controls})
	require.NoError(t, err)
	lw, err := reflector.NewListWatch[*ConfigMap](c, reflector.Source{Resource: "configmaps", Namespace: testNamespace})
	require.NoError(t, err)
	e.inf, err = informer.New(lw, informer.Options[*ConfigMap]{
		Name:      "configmaps",
		Reflector: reflector.Options{Trace: e.view.Trace, Backoff: o.backoff, DisableStreamingList: true, PageSize: 10},
	})
	require.NoError(t, err)
	webview.Attach(e.view, e.inf)
	_, err = e.inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{}, informer.HandlerOptions{Name: "count"})
	require.NoError(t, err)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e.url = e.view.URL(ln)
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = e.inf.Run(runCtx) })
	wg.Go(func() { _ = e.view.Serve(runCtx, ln) })
	t.Cleanup(func() { stop(); wg.Wait() })
	select {
	case <-e.inf.Synced():
	case <-ctx.Done():
		t.Fatalf("informer never synced: %v", e.inf.SyncError())
	}
	return e
}

func (e *env) createNamespace() {
	e.t.Helper()
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": testNamespace}}
	require.NoError(e.t, e.c.Post().Resource("namespaces").Body(ns).Do(e.ctx).Error())
}

// create makes one ConfigMap.
func (e *env) create(name string) {
	e.t.Helper()
	cm := &ConfigMap{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta.ObjectMeta{Name: name}, Data: map[string]string{"v": "1"}}
	require.NoError(e.t, e.c.Post().Namespace(testNamespace).Resource("configmaps").Body(cm).Do(e.ctx).Error(), "create %s", name)
}

// serverCount lists the namespace's ConfigMaps on the server.
func (e *env) serverCount() int {
	e.t.Helper()
	var list struct {
		Items []ConfigMap `json:"items"`
	}
	require.NoError(e.t, e.c.Get().Namespace(testNamespace).Resource("configmaps").Do(e.ctx).Into(&list))
	return len(list.Items)
}

// cutControls is one fault: cut the test namespace's watches.
func cutControls(srv *fakeapiserver.Server) webview.Controls {
	return webview.Controls{Faults: []webview.Fault{{
		ID: "cut", Label: "Cut the watch", Help: "drop the connection",
		Do: func(context.Context) error {
			if n := srv.CutWatches(fakeapiserver.Match{Resource: "configmaps", Namespace: testNamespace}, fakeapiserver.CutAbort); n == 0 {
				return fmt.Errorf("no watch to cut")
			}
			return nil
		},
	}}}
}

// lines joins for failure messages.
func lines(s []string) string { return strings.Join(s, "\n") }
