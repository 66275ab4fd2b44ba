package reliability_test

import (
	"fmt"

	"github.com/kubecache/kubecache/internal/reliability"
	"github.com/kubecache/kubecache/meta"
)

// A CheckedStore shows every write to a Monitor, which records any object
// whose resourceVersion goes backwards; a Snapshot compared with a fresh
// list says whether the store converged.
func Example() {
	mon := reliability.NewMonitor()
	store := reliability.NewCheckedStore[*meta.PartialObjectMetadata](mon, "store")
	cm := func(name, rv string) *meta.PartialObjectMetadata {
		return &meta.PartialObjectMetadata{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
	}
	_ = store.Add(cm("a", "5"))
	_ = store.Update(cm("a", "7"))
	_ = store.Update(cm("a", "6")) // an older event applied late
	_ = store.Add(cm("b", "8"))
	fmt.Println(mon.Violations())

	fresh := reliability.Snapshot{"default/a": "7", "default/c": "9"}
	fmt.Println(store.Snapshot().Diff(fresh))
	// Output:
	// [store: store:default/a went back from rv=7 to rv=6]
	// +default/b@8
	// -default/c@9
	// ~default/a@6 (want 7)
}

// A Table prints as Markdown, as the fault matrix does.
func ExampleTable() {
	t := reliability.Table{Header: []string{"fault", "reflector"}}
	t.Rows = append(t.Rows, []string{"410 Gone | ERROR event", "ok"})
	fmt.Print(t.Markdown())
	// Output:
	// | fault | reflector |
	// | --- | --- |
	// | 410 Gone \| ERROR event | ok |
}
