package reflector

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

func TestListOptionsValues(t *testing.T) {
	assert.Empty(t, ListOptions{}.Values(), "the zero options set no parameter")
	got := ListOptions{
		LabelSelector: "app=web", FieldSelector: "metadata.name=a", ResourceVersion: "10",
		ResourceVersionMatch: MatchNotOlderThan, Limit: 500, Continue: "tok", TimeoutSeconds: 300,
		AllowWatchBookmarks: true, SendInitialEvents: true,
	}.Values()
	assert.Equal(t, url.Values{
		"labelSelector": {"app=web"}, "fieldSelector": {"metadata.name=a"}, "resourceVersion": {"10"},
		"resourceVersionMatch": {"NotOlderThan"}, "limit": {"500"}, "continue": {"tok"}, "timeoutSeconds": {"300"},
		"allowWatchBookmarks": {"true"}, "sendInitialEvents": {"true"},
	}, got)
}

func TestOptionsDefaults(t *testing.T) {
	o, err := Options{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, int64(500), o.PageSize)
	assert.Equal(t, 5*time.Minute, o.MinWatchTimeout)
	assert.Equal(t, 10*time.Minute, o.MaxWatchTimeout)
	assert.Equal(t, 2*time.Minute, o.InitialEventsTimeout)
	assert.Equal(t, Backoff{Initial: 800 * time.Millisecond, Max: 30 * time.Second, ResetAfter: 2 * time.Minute, Jitter: 1}, o.Backoff)
	assert.Equal(t, clock.Real{}, o.Clock)
	o, err = Options{Backoff: Backoff{Jitter: NoJitter, Initial: time.Minute}}.withDefaults()
	require.NoError(t, err)
	assert.Zero(t, o.Backoff.Jitter)
	assert.Equal(t, time.Minute, o.Backoff.Max, "Max is at least Initial")
}

func TestOptionsRejected(t *testing.T) {
	for name, o := range map[string]Options{
		"negative resync":           {ResyncPeriod: -1},
		"negative backoff":          {Backoff: Backoff{Initial: -time.Second}},
		"max under min":             {MinWatchTimeout: time.Hour, MaxWatchTimeout: time.Minute},
		"watch timeout under 1s":    {MinWatchTimeout: time.Millisecond},
		"backoff max under initial": {Backoff: Backoff{Initial: time.Minute, Max: time.Second}},
		"negative jitter":           {Backoff: Backoff{Jitter: -0.5}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewReflector[*Obj](newScriptLW(), newMapStore(t), o)
			assert.ErrorIs(t, err, ErrInvalidOptions)
		})
	}
}

// untagged embeds ObjectMeta without its tag, so its metadata would decode
// as empty.
type untagged struct {
	meta.TypeMeta `json:",inline"`
	meta.ObjectMeta
}

// untaggedStore stores nothing.
type untaggedStore struct{}

func (untaggedStore) Add(*untagged) error               { return nil }
func (untaggedStore) Update(*untagged) error            { return nil }
func (untaggedStore) Delete(*untagged) error            { return nil }
func (untaggedStore) Replace([]*untagged, string) error { return nil }

func TestNewReflectorRejectsBadArguments(t *testing.T) {
	_, err := NewReflector[*Obj](nil, newMapStore(t), Options{})
	assert.ErrorContains(t, err, "ListerWatcher is nil")
	var nilLW *ListWatch[*Obj]
	_, err = NewReflector[*Obj](nilLW, newMapStore(t), Options{})
	assert.ErrorContains(t, err, "ListerWatcher is nil")
	_, err = NewReflector[*Obj](newScriptLW(), nil, Options{})
	assert.ErrorContains(t, err, "Store is nil")
	_, err = NewReflector[*untagged](&ListWatch[*untagged]{}, untaggedStore{}, Options{})
	assert.ErrorContains(t, err, "ObjectMeta")
}

func TestNameDefaultsToTypeName(t *testing.T) {
	r, err := NewReflector[*Obj](newScriptLW(), newMapStore(t), Options{})
	require.NoError(t, err)
	assert.Equal(t, "Obj", r.opts.Name)
}

func TestRunTwiceAtOnceIsRefused(t *testing.T) {
	h := start(t, listWatchOpts)
	h.nextList() // Run is inside its first list
	assert.ErrorIs(t, h.r.Run(context.Background()), ErrAlreadyRunning)
	assert.ErrorIs(t, h.r.ListAndWatch(context.Background()), ErrAlreadyRunning)
}

func TestCancelEndsRunInEveryState(t *testing.T) {
	for name, reach := range map[string]func(h *harness){
		"listing":  func(h *harness) { h.nextList() },
		"watching": func(h *harness) { syncByList(t, h, "1") },
		"watch call": func(h *harness) {
			h.nextList().answer("1", "")
			h.nextWatch()
		},
		"backing off": func(h *harness) {
			h.nextList().fail(status(500, meta.ReasonInternalError))
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			require.NoError(t, h.clock.WaitForTimers(ctx, 1))
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := start(t, listWatchOpts)
			reach(h)
			h.stop() // fails the test if Run does not return
		})
	}
	t.Run("streaming list", func(t *testing.T) {
		h := start(t, Options{})
		w := h.nextWatch().open()
		w.add(obj("a", "1"))
		h.stop()
		assert.True(t, w.isStopped(), "the stream was not stopped")
	})
}

func TestParseResource(t *testing.T) {
	for _, tc := range []struct{ in, group, version, name string }{
		{"pods", "", "v1", "pods"},
		{"deployments.v1.apps", "apps", "v1", "deployments"},
		{"widgets.v1beta2.example.com", "example.com", "v1beta2", "widgets"},
		{"apps/v1/deployments", "apps", "v1", "deployments"},
		{"v1/configmaps", "", "v1", "configmaps"},
		{"example.com/v1alpha1/widgets", "example.com", "v1alpha1", "widgets"},
	} {
		g, v, n, err := ParseResource(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, []string{tc.group, tc.version, tc.name}, []string{g, v, n}, "ParseResource(%q)", tc.in)
	}
	for _, in := range []string{"", "deployments.apps", "a/b/c/d", "apps/notaversion/deployments", "apps/v1/", "x.v1.", ".v0.0"} {
		_, _, _, err := ParseResource(in)
		assert.ErrorIs(t, err, rest.ErrInvalidRequest, "ParseResource(%q)", in)
	}
}
