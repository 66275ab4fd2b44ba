package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/internal/watchspy"
	"github.com/kubecache/kubecache/rest"
)

// writer makes changes on a fake server for watch tests.
type writer struct {
	t      *testing.T
	client *rest.Client
}

func newWriter(t *testing.T, s *fakeapiserver.Server) *writer {
	t.Helper()
	client, err := rest.NewClient(&rest.Config{Host: s.URL()})
	require.NoError(t, err)
	t.Cleanup(client.CloseIdleConnections)
	return &writer{t: t, client: client}
}

func (w *writer) do(r *rest.Request) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	require.NoError(w.t, r.Do(ctx).Error())
}

func (w *writer) namespace(name string) {
	w.t.Helper()
	w.do(w.client.Post().Resource("namespaces").Body([]byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + name + `"}}`)))
}

func (w *writer) create(ns, name string) {
	w.t.Helper()
	w.do(w.client.Post().Namespace(ns).Resource("configmaps").
		Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"v":"1"}}`)))
}

func (w *writer) update(ns, name, value string) {
	w.t.Helper()
	w.do(w.client.Patch(rest.MergePatchType).Namespace(ns).Resource("configmaps").Name(name).
		Body([]byte(`{"data":{"v":"` + value + `"}}`)))
}

func (w *writer) delete(ns, name string) {
	w.t.Helper()
	w.do(w.client.Delete().Namespace(ns).Resource("configmaps").Name(name))
}

func TestWatchPrintsEachEventAndASummary(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{})
	w := newWriter(t, s)
	w.create("default", "before")
	w.namespace("other")

	b := start(t, "watch", "configmaps", "--kubeconfig", kc)
	b.stderr.waitForText(t, "synced: 1 object", 1)
	w.create("default", "a")
	w.update("default", "a", "2")
	w.delete("default", "a")
	w.create("other", "not-watched") // another namespace
	b.stdout.waitForText(t, "DELETED", 1)
	require.NoError(t, b.stop())

	lines := strings.Split(strings.TrimSpace(b.stdout.String()), "\n")
	require.Len(t, lines, 4, b.stdout.String())
	for i, want := range []string{"ADDED     default/before  rv=", "ADDED     default/a  rv=", "MODIFIED  default/a  rv=", "DELETED   default/a  rv="} {
		assert.Contains(t, lines[i], want)
	}
	assert.True(t, strings.HasSuffix(lines[0], "(initial list)"), lines[0])
	assert.False(t, strings.HasSuffix(lines[1], "(initial list)"), lines[1])
	errOut := b.stderr.String()
	assert.Contains(t, errOut, "watched configmaps for ")
	assert.Contains(t, errOut, ": 1 object held at rv=")
	assert.Contains(t, errOut, "handler:   2 added (1 from the initial list), 1 modified, 1 deleted")
	assert.Contains(t, errOut, "reflector: 3 watch events and ")
	assert.Contains(t, errOut, "0 relists, 0 reconnects")
}

func TestWatchJSONLines(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{})
	w := newWriter(t, s)
	w.namespace("shop")
	w.create("shop", "first")

	b := start(t, "watch", "cm", "-A", "-o", "json", "--show-object", "--kubeconfig", kc)
	b.stderr.waitForText(t, "synced", 1)
	w.update("shop", "first", "2")
	w.delete("shop", "first")
	b.stdout.waitForText(t, `"DELETED"`, 1)
	require.NoError(t, b.stop())

	type event struct {
		Time, Type, Key, ResourceVersion string
		Initial                          bool
		Object                           struct {
			Kind     string
			Metadata struct{ Name, ResourceVersion string }
			Data     map[string]string
		}
	}
	var events []event
	for _, line := range strings.Split(strings.TrimSpace(b.stdout.String()), "\n") {
		var ev event
		require.NoError(t, json.Unmarshal([]byte(line), &ev), "each line is one JSON object: %q", line)
		events = append(events, ev)
	}
	require.Len(t, events, 3)
	assert.Equal(t, []string{"ADDED", "MODIFIED", "DELETED"}, []string{events[0].Type, events[1].Type, events[2].Type})
	assert.True(t, events[0].Initial)
	for _, ev := range events {
		assert.Equal(t, "shop/first", ev.Key)
		assert.NotEmpty(t, ev.Time)
		assert.Equal(t, "ConfigMap", ev.Object.Kind, "the object carries its kind")
		assert.Equal(t, ev.ResourceVersion, ev.Object.Metadata.ResourceVersion)
	}
	assert.Equal(t, "2", events[1].Object.Data["v"])

	// Without --show-object, no object.
	b = start(t, "watch", "cm", "-A", "-o", "json", "--kubeconfig", kc, "--streaming-list=false")
	b.stderr.waitForText(t, "synced", 1)
	w.create("shop", "second")
	b.stdout.waitForText(t, `"ADDED"`, 1)
	require.NoError(t, b.stop())
	assert.NotContains(t, b.stdout.String(), `"object"`)
	assert.Contains(t, b.stdout.String(), `"key":"shop/second"`)
}

// TestWatchExplainNarratesA410 cuts the watch and compacts the server's
// history behind it: the reconnect gets 410 Gone, and the narration shows
// the break, the backoff, the reconnect, the 410 and the relist it
// causes, in that order.
func TestWatchExplainNarratesA410(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{CompactionInterval: -1})
	w := newWriter(t, s)
	w.create("default", "a")

	b := start(t, "watch", "cm", "--explain", "--streaming-list=false", "--kubeconfig", kc)
	b.stderr.waitForText(t, "synced", 1)
	require.NoError(t, s.WaitForWatchers(context.Background(), "configmaps", 1))
	w.update("default", "a", "2")
	b.stderr.waitForText(t, "MODIFIED default/a", 1)

	s.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort)
	w.create("default", "missed") // while the reflector backs off
	s.CompactNow()
	b.stderr.waitForText(t, "REPLACE", 2)
	b.stdout.waitForText(t, "default/missed", 1)
	require.NoError(t, b.stop())

	out := b.stderr.String()
	ok, missing := inOrder(out,
		"LIST rv=0 limit=500", "REPLACE 1 objects", "WATCH rv=",
		"MODIFIED default/a",
		"watch ended after", "the stream broke",
		"backing off", "wait, then try again",
		"-> watching rv=", "reconnect",
		"WATCH rv=",
		"410 Expired", "410: the server no longer has that history",
		`-> listing rv=""  — relist`,
		`LIST rv="" limit=500`,
		"REPLACE 2 objects",
		"WATCH rv=",
		"1 relist, 2 reconnects",
	)
	assert.True(t, ok, "narration lacks %q in its place:\n%s", missing, out)
	assert.Contains(t, b.stdout.String(), "ADDED     default/missed", "the relist delivers what the watch missed")
}

// TestWatchStreamingListExplained shows the streaming list: one WATCH
// whose initial events fill the store up to the initial-events-end
// bookmark; a long one is shown by its first events and a count.
func TestWatchStreamingListExplained(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{})
	w := newWriter(t, s)
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		w.create("default", n)
	}
	b := start(t, "watch", "cm", "--explain", "--kubeconfig", kc)
	b.stderr.waitForText(t, "synced", 1)
	require.NoError(t, b.stop())
	ok, missing := inOrder(b.stderr.String(),
		"WATCH", "sendInitialEvents", "a streaming list",
		"initial ADDED default/a", "initial ADDED default/e",
		"… and 2 more initial ADDED events",
		"BOOKMARK", "(initial-events-end)",
		"REPLACE 7 objects",
		"(continuing the streaming list)",
	)
	assert.True(t, ok, "narration lacks %q in its place:\n%s", missing, b.stderr.String())
	assert.Contains(t, b.stderr.String(), "synced: 7 objects")
	assert.NotContains(t, b.stderr.String(), "initial ADDED default/f")
}

func TestWatchFailsLikeKubectlWhenTheListFails(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{})
	s.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Resource: "configmaps"}, Code: 403, Count: 10,
		Message: `configmaps is forbidden: User "alice" cannot watch resource "configmaps" in API group "" in the namespace "default"`})
	r := runCommand(t, "watch", "cm", "--kubeconfig", kc)
	require.Error(t, r.err)
	assert.Equal(t, `Error from server (Forbidden): configmaps is forbidden: User "alice" cannot watch resource "configmaps" in API group "" in the namespace "default"`+"\n", r.stderr)
}

func TestWatchOneObjectByName(t *testing.T) {
	s, kc := fakeServer(t, fakeapiserver.Options{})
	w := newWriter(t, s)
	w.create("default", "mine")
	w.create("default", "other")

	b := start(t, "watch", "cm", "mine", "--kubeconfig", kc)
	b.stderr.waitForText(t, "synced: 1 object", 1)
	w.update("default", "other", "2")
	w.update("default", "mine", "2")
	b.stdout.waitForText(t, "MODIFIED", 1)
	require.NoError(t, b.stop())
	assert.NotContains(t, b.stdout.String(), "default/other", "a NAME watches only that object (metadata.name field selector)")
	assert.Contains(t, b.stdout.String(), "MODIFIED  default/mine")
}

// TestWatchOverWebsocket runs watch with --transport=websocket through a
// proxy that records whether each watch request asked for a websocket.
func TestWatchOverWebsocket(t *testing.T) {
	s := fakeapiserver.NewForTest(t, fakeapiserver.Options{})
	spy := watchspy.New(t, s.URL())
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte(strings.Replace(string(s.Kubeconfig()), s.URL(), spy.URL, 1)), 0o600))
	w := newWriter(t, s)
	w.create("default", "before")

	b := start(t, "watch", "configmaps", "--kubeconfig", kc, "--transport=websocket", "--streaming-list=false")
	b.stderr.waitForText(t, "synced: 1 object", 1)
	w.create("default", "a")
	b.stdout.waitForText(t, "default/a", 1)
	require.NoError(t, b.stop())
	assert.Equal(t, "websocket", <-spy.Upgrades, "the watch request's Upgrade header")
	assert.Contains(t, b.stdout.String(), "ADDED     default/a  rv=")

	err := run(t.Context(), []string{"watch", "configmaps", "--kubeconfig", kc, "--transport=spdy"}, io.Discard, io.Discard)
	assert.ErrorContains(t, err, `--transport is http or websocket, not "spdy"`)
}
