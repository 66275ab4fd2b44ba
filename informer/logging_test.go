package informer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/reflector"
)

// logBuffer collects JSON log lines from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the records logged so far.
func (b *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}

func newLogger(b *logBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Every line, the reflector's too, names the informer, the resource and
// the namespaces, whether the logger comes from the options or from the
// context of Run.
func TestInformerLogsLabelledLines(t *testing.T) {
	for _, fromContext := range []bool{false, true} {
		e := newEnv(t)
		e.create("default", "a", nil)
		var b logBuffer
		opts := informer.Options[*ConfigMap]{}
		if !fromContext {
			opts.Logger = newLogger(&b)
		}
		inf := e.informerFor("default", opts)
		rec := newRecorder()
		_, err := inf.AddEventHandler(informer.HandlerFuncs[*ConfigMap]{AddFunc: func(c *ConfigMap, initial bool) {
			rec.OnAdd(c, initial)
			if c.Name == "boom" {
				panic("handler bug")
			}
		}}, informer.HandlerOptions{Name: "adds"})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		if fromContext {
			ctx = reflector.WithLogger(ctx, newLogger(&b))
		}
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		waitSynced(t, inf)
		e.create("default", "boom", nil)
		rec.waitLen(t, 2)
		cancel()
		require.NoError(t, <-done)

		msgs := map[string]map[string]any{}
		for _, l := range b.lines(t) {
			assert.Equal(t, "configmaps", l["informer"], "%v", l)
			assert.Equal(t, "configmaps", l["resource"], "%v", l)
			assert.Equal(t, "default", l["namespaces"], "%v", l)
			assert.NotContains(t, l, "reflector", "the informer's labels only, not twice: %v", l)
			msgs[l["msg"].(string)] = l
		}
		for _, want := range []string{"started", "listed", "synced", "state", "handler panicked", "stopped"} {
			assert.Contains(t, msgs, want, "context logger: %v", fromContext)
		}
		assert.Equal(t, "adds", msgs["handler panicked"]["handler"])
		assert.Equal(t, "ERROR", msgs["handler panicked"]["level"])
		assert.EqualValues(t, 1, msgs["listed"]["objects"])
	}
}

// Without a logger an informer writes nothing, not even to slog's default.
func TestInformerIsQuietWithoutALogger(t *testing.T) {
	var b logBuffer
	prev := slog.Default()
	slog.SetDefault(newLogger(&b))
	t.Cleanup(func() { slog.SetDefault(prev) })
	e := newEnv(t)
	e.create("default", "a", nil)
	inf := e.informerFor("default", informer.Options[*ConfigMap]{})
	stop := run(t, inf)
	waitSynced(t, inf)
	stop()
	assert.Empty(t, b.lines(t))
}
