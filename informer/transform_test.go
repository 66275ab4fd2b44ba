package informer_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver"
	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

func TestTransformRunsBeforeStoringForEveryKindOfList(t *testing.T) {
	for name, ropts := range map[string]reflector.Options{
		"streaming list": {},
		"paginated list": {DisableStreamingList: true, PageSize: 2},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			for _, n := range []string{"a", "b", "c"} {
				cm := e.create("default", n, map[string]string{"k": "v"})
				require.NotEmpty(t, cm.ManagedFields, "the server sets managedFields")
			}
			var calls atomic.Int32
			drop := informer.DropManagedFields[*ConfigMap]()
			inf := e.informerFor("default", informer.Options[*ConfigMap]{
				Reflector: ropts,
				Transform: informer.Transform[*ConfigMap]{Name: "drop+mark", Func: func(cm *ConfigMap) (*ConfigMap, error) {
					calls.Add(1)
					cm.Data["transformed"] = "yes"
					return drop.Func(cm)
				}},
			})
			rec := newRecorder()
			_, err := inf.AddEventHandler(rec, informer.HandlerOptions{})
			require.NoError(t, err)
			run(t, inf)
			waitSynced(t, inf)
			e.create("default", "d", map[string]string{"k": "v"})
			rec.waitLen(t, 4)

			for _, cm := range inf.Indexer().List() {
				assert.Empty(t, cm.ManagedFields, "%s: managedFields dropped", cm.Name)
				assert.Equal(t, "yes", cm.Data["transformed"], cm.Name)
			}
			assert.Equal(t, int32(4), calls.Load(), "once per object received")
		})
	}
}

func TestTransformSkipsObjectsAlreadyStored(t *testing.T) {
	e := newEnv(t)
	e.create("default", "a", nil)
	errs := newErrorLog()
	var calls atomic.Int32
	inf := e.informerFor("default", informer.Options[*ConfigMap]{
		OnError:   errs.add,
		Transform: informer.Transform[*ConfigMap]{Name: "count", Func: func(cm *ConfigMap) (*ConfigMap, error) { calls.Add(1); return cm, nil }},
	})
	rec := e.startRecorded(inf)
	require.Equal(t, int32(1), calls.Load())
	before, ok := inf.Indexer().GetByKey("default/a")
	require.True(t, ok)

	// A relist finds a unchanged: the reflector reuses the stored object
	// instead of decoding it, and the transform must not see it again.
	e.srv.FailNext(fakeapiserver.FailRule{Match: fakeapiserver.Match{Verb: "watch", Resource: "configmaps"}, Count: 1 << 20, Code: 503})
	e.srv.CutWatches(fakeapiserver.Match{Resource: "configmaps"}, fakeapiserver.CutAbort)
	errs.waitFor(t, "a refused watch", func(err error) bool { return rest.IsServiceUnavailable(err) })
	e.create("default", "b", nil)
	e.srv.CompactNow()
	e.srv.ClearFaults()
	rec.waitFor(t, "b added by the relist", func(ev []string) bool {
		return len(ev) > 0 && strings.HasPrefix(ev[len(ev)-1], "add default/b")
	})
	after, _ := inf.Indexer().GetByKey("default/a")
	assert.Same(t, before, after, "the unchanged object is reused")
	assert.Equal(t, int32(2), calls.Load(), "a is not transformed twice; b once")
}

func TestTransformErrorsAreReportedWithTheObject(t *testing.T) {
	e := newEnv(t)
	e.create("default", "good", nil)
	errs := newErrorLog()
	inf := e.informerFor("default", informer.Options[*ConfigMap]{
		OnError: errs.add,
		Transform: informer.Transform[*ConfigMap]{Name: "picky", Func: func(cm *ConfigMap) (*ConfigMap, error) {
			switch cm.Name {
			case "bad":
				return nil, errors.New("no thanks")
			case "nil":
				return nil, nil
			case "renamed":
				out := *cm
				out.Name = "other"
				return &out, nil
			}
			return cm, nil
		}},
	})
	rec := newRecorder()
	_, err := inf.AddEventHandler(rec, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)
	for _, n := range []string{"bad", "nil", "renamed", "after"} {
		e.create("default", n, nil)
	}
	rec.waitFor(t, "add of after", func(ev []string) bool {
		return len(ev) > 0 && strings.HasPrefix(ev[len(ev)-1], "add default/after")
	})
	assert.Len(t, rec.snapshot(), 2, "only good and after reach the handler")
	for want, n := range map[string]string{
		"transform default/bad: no thanks":                                       "bad",
		"transform default/nil: returned a nil object":                           "nil",
		`transform default/renamed: changed the object's key to "default/other"`: "renamed",
	} {
		errs.waitFor(t, n, func(err error) bool { return strings.Contains(err.Error(), want) })
	}
}
