package cache_test

import (
	"context"
	"fmt"
	"sort"

	"github.com/kubecache/kubecache/cache"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// Pod is a user's object type: only the fields the program needs, with
// TypeMeta inline and ObjectMeta under "metadata".
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            PodSpec `json:"spec"`
}

// PodSpec is the part of a pod's spec the examples and tests use (the
// tests index pods by node).
type PodSpec struct {
	NodeName string `json:"nodeName,omitempty"`
}

func pod(namespace, name, rv, node string) *Pod {
	return &Pod{
		ObjectMeta: meta.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: rv,
			Labels: map[string]string{"app": name[:3]}},
		Spec: PodSpec{NodeName: node},
	}
}

// A Reflector fills any Store the same way: a list replaces everything,
// then each watch event adds, updates or deletes one object. Here the
// store is an Indexer, the cache itself.
func ExampleStore() {
	var store cache.Store[*Pod] = cache.NewIndexer[*Pod](nil)

	// The list: streamed into the store one object at a time.
	relist := store.BeginReplace()
	for _, p := range []*Pod{pod("default", "web-0", "10", "n1"), pod("default", "db-0", "11", "n2")} {
		_ = relist.Add(p)
	}
	_ = relist.Commit("11")

	// The watch.
	_ = store.Add(pod("default", "web-1", "12", "n1"))
	_ = store.Update(pod("default", "web-0", "13", "n2"))
	_ = store.Delete(pod("default", "db-0", "14", "n2"))

	keys := store.ListKeys()
	sort.Strings(keys)
	fmt.Println(keys)
	web0, _ := store.GetByKey("default/web-0")
	fmt.Println(web0.Spec.NodeName, web0.ResourceVersion)

	// A later relist reuses the objects whose resourceVersion is unchanged.
	relist = store.BeginReplace()
	if cur, ok := relist.Lookup("default", "web-1"); ok && cur.ResourceVersion == "12" {
		fmt.Println("web-1 unchanged: reused without decoding")
		_ = relist.Add(cur)
	}
	_ = relist.Commit("15")
	fmt.Println(store.ListKeys())
	// Output:
	// [default/web-0 default/web-1]
	// n2 13
	// web-1 unchanged: reused without decoding
	// [default/web-1]
}

// An Indexer answers "which pods run on node n1?" from an index instead
// of a scan, and a Lister answers by label selector and namespace.
func ExampleIndexer() {
	pods := cache.NewIndexer[*Pod](nil)
	_ = pods.AddIndexers(cache.Indexers[*Pod]{
		"node": func(p *Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil },
	})
	_ = pods.Add(pod("default", "web-0", "1", "n1"))
	_ = pods.Add(pod("default", "web-1", "2", "n2"))
	_ = pods.Add(pod("kube-system", "dns-0", "3", "n1"))

	onN1, _ := pods.ByIndex("node", "n1")
	names := make([]string, 0, len(onN1))
	for _, p := range onN1 {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	fmt.Println("on n1:", names)

	namespaces, _ := pods.ListIndexFuncValues(cache.NamespaceIndex)
	sort.Strings(namespaces)
	fmt.Println("namespaces:", namespaces)

	sel, _ := selector.ParseLabels("app=web")
	lister := cache.NewLister(pods)
	fmt.Println("web pods in default:", len(lister.Namespace("default").List(sel)))
	dns, err := lister.Namespace("kube-system").Get("dns-0")
	fmt.Println(dns.Spec.NodeName, err)

	// Objects are shared: change a copy, never the cached object.
	c, _ := meta.Clone(dns)
	c.Spec.NodeName = "n3"
	fmt.Println(dns.Spec.NodeName, c.Spec.NodeName)
	// Output:
	// on n1: [dns-0 web-0]
	// namespaces: [default kube-system]
	// web pods in default: 2
	// n1 <nil>
	// n1 n3
}

// An informer puts a DeltaFIFO between the Reflector and its Indexer: it
// pops each key with everything that happened to it, applies that to the
// Indexer and tells its handlers.
func ExampleDeltaFIFO() {
	indexer := cache.NewIndexer[*Pod](nil)
	queue := cache.NewDeltaFIFO(cache.QueueOptions[*Pod]{KnownObjects: indexer})

	// What the Reflector writes: a list, then watch events.
	_ = queue.Replace([]*Pod{pod("default", "web-0", "10", "n1"), pod("default", "db-0", "11", "n1")}, "11")
	_ = queue.Update(pod("default", "web-0", "12", "n2"))
	_ = queue.Delete(pod("default", "db-0", "13", "n1"))

	process := func(key string, deltas cache.Deltas[*Pod]) error {
		for _, d := range deltas {
			fmt.Printf("%s %s rv=%s\n", key, d.Type, d.Object.ResourceVersion)
			if d.Type == cache.Deleted {
				_ = indexer.Delete(d.Object)
			} else {
				_ = indexer.Update(d.Object)
			}
		}
		return nil
	}
	ctx := context.Background()
	for queue.Len() > 0 {
		_ = queue.Pop(ctx, process)
	}
	fmt.Println("synced:", queue.HasSynced(), "cached:", indexer.ListKeys())

	// A relist that no longer holds web-0: its deletion was missed, so it
	// is queued with FinalStateUnknown and the last state known.
	_ = queue.Replace(nil, "20")
	_ = queue.Pop(ctx, func(key string, deltas cache.Deltas[*Pod]) error {
		d, _ := deltas.Newest()
		fmt.Println(key, d.Type, "final state unknown:", d.FinalStateUnknown, "last known rv:", d.Object.ResourceVersion)
		return nil
	})
	// Output:
	// default/web-0 Replaced rv=10
	// default/web-0 Updated rv=12
	// default/db-0 Replaced rv=11
	// default/db-0 Deleted rv=13
	// synced: true cached: [default/web-0]
	// default/web-0 Deleted final state unknown: true last known rv: 12
}

// A FIFO keeps every change as its own entry, in arrival order across keys.
func ExampleFIFO() {
	queue := cache.NewFIFO(cache.QueueOptions[*Pod]{})
	_ = queue.Add(pod("default", "web-0", "1", "n1"))
	_ = queue.Add(pod("default", "db-0", "2", "n1"))
	_ = queue.Update(pod("default", "web-0", "3", "n2"))
	for queue.Len() > 0 {
		_ = queue.Pop(context.Background(), func(key string, deltas cache.Deltas[*Pod]) error {
			fmt.Println(key, deltas[0].Type, deltas[0].Object.ResourceVersion)
			return nil
		})
	}
	// Output:
	// default/web-0 Added 1
	// default/db-0 Added 2
	// default/web-0 Updated 3
}
