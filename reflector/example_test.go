package reflector_test

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/watch"
)

// ConfigMap is a user's object type: TypeMeta inline, ObjectMeta under
// "metadata", and only the fields the program needs.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func configMap(name, rv string) *ConfigMap {
	return &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
}

// A Reflector over a ListerWatcher made of two functions: the list returns
// two objects, the watch is fed by hand. The trace hook narrates every step,
// as an explain mode would.
func Example() {
	events := watch.NewFake[*ConfigMap]()
	lw := &reflector.ListWatch[*ConfigMap]{
		ListFunc: func(ctx context.Context, opts reflector.ListOptions, _ reflector.Known[*ConfigMap], emit func(*ConfigMap) error) (meta.ListMeta, error) {
			for _, cm := range []*ConfigMap{configMap("a", "1"), configMap("b", "2")} {
				if err := emit(cm); err != nil {
					return meta.ListMeta{}, err
				}
			}
			return meta.ListMeta{ResourceVersion: "2"}, nil
		},
		WatchFunc: func(ctx context.Context, opts reflector.ListOptions, _ reflector.Known[*ConfigMap]) (watch.Interface[*ConfigMap], error) {
			return events, nil
		},
	}
	store := cache.NewIndexer[*ConfigMap](nil)
	r, err := reflector.NewReflector[*ConfigMap](lw, store, reflector.Options{
		Name:                 "configmaps",
		DisableStreamingList: true,            // this ListWatch cannot stream a list
		MinWatchTimeout:      5 * time.Minute, // a fixed timeout, for a stable output
		MaxWatchTimeout:      5 * time.Minute,
		Trace:                func(ev reflector.TraceEvent) { fmt.Println(ev) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx)
	}()
	events.Add(configMap("c", "3"))
	events.Modify(configMap("a", "4"))
	events.Delete(configMap("b", "5"))
	events.Bookmark(&ConfigMap{ObjectMeta: meta.ObjectMeta{ResourceVersion: "6"}})
	cancel()
	<-done

	keys := store.ListKeys()
	sort.Strings(keys)
	fmt.Println(keys, "at rv", r.LastSyncResourceVersion())
	// Output:
	// LIST rv=0 limit=500
	// page 1: 2 items rv=2
	// REPLACE 2 objects rv=2
	// listing rv=0 -> watching rv=2
	// WATCH rv=2 timeoutSeconds=300 allowWatchBookmarks
	// ADDED default/c rv=3
	// MODIFIED default/a rv=4
	// DELETED default/b rv=5
	// BOOKMARK rv=6
	// watching rv=2 -> stopped
	// [default/a default/c] at rv 6
}
