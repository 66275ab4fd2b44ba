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
	controls func(*env) webview.Controls
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
		controls = o.controls(e)
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

// create makes one ConfigMap in the test namespace.
func (e *env) create(name string) {
	e.t.Helper()
	require.NoError(e.t, e.post(e.ctx, testNamespace, name), "create %s", name)
}

// createIn makes one ConfigMap in ns, from a control's goroutine.
func (e *env) createIn(ctx context.Context, ns, name string) {
	if err := e.post(ctx, ns, name); err != nil {
		e.t.Errorf("create %s/%s: %v", ns, name, err)
	}
}

func (e *env) post(ctx context.Context, ns, name string) error {
	cm := &ConfigMap{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta.ObjectMeta{Name: name}, Data: map[string]string{"v": "1"}}
	return e.c.Post().Namespace(ns).Resource("configmaps").Body(cm).Do(ctx).Error()
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

// testControls are the faults the browser test presses — cut the test
// namespace's watches; cut them, move the server on and compact its
// history (a 410) — and a slider whose values arrive on rates.
func testControls(rates chan<- float64) func(*env) webview.Controls {
	return func(e *env) webview.Controls {
		srv := e.srv
		match := fakeapiserver.Match{Resource: "configmaps", Namespace: testNamespace}
		cut := func(context.Context) error {
			if n := srv.CutWatches(match, fakeapiserver.CutAbort); n == 0 {
				return fmt.Errorf("no watch to cut")
			}
			return nil
		}
		return webview.Controls{
			Faults: []webview.Fault{
				{ID: "cut", Label: "Cut the watch", Help: "drop the connection", Do: cut},
				{ID: "compact", Label: "Compact (410)", Help: "forget the history", Do: func(ctx context.Context) error {
					if err := cut(ctx); err != nil {
						return err
					}
					e.createIn(ctx, "default", "elsewhere")
					srv.CompactNow()
					return nil
				}},
			},
			Sliders: []webview.Slider{{ID: "rate", Label: "Rate", Unit: "writes/s", Min: 0, Max: 100, Step: 1, Value: 2,
				Set: func(v float64) error { rates <- v; return nil }}},
		}
	}
}

// lines joins for failure messages.
func lines(s []string) string { return strings.Join(s, "\n") }
