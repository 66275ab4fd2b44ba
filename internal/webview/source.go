package webview

import (
	"slices"
	"strings"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

// source is what the view reads from the informer it shows, whatever its
// object type.
type source interface {
	name() string
	store() StoreView
	// objects returns how many objects match filter and the first limit
	// of them by key.
	objects(filter string, limit int) (int, []ObjectRow)
	handlers() []handlerStat
}

// ObjectRow is one row of the store's table.
type ObjectRow struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	RV        string `json:"rv"`
}

// handlerStat is one registration as read, before rates are computed.
type handlerStat struct {
	name    string
	synced  bool
	backlog informer.Backlog
}

// informerSource reads an Informer.
type informerSource[T meta.Object] struct {
	inf *informer.Informer[T]
}

func (s informerSource[T]) name() string { return s.inf.Name() }

func (s informerSource[T]) store() StoreView {
	return StoreView{Count: s.inf.Indexer().Len(), Synced: s.inf.HasSynced(), LastSync: s.inf.LastSyncResourceVersion()}
}

func (s informerSource[T]) objects(filter string, limit int) (int, []ObjectRow) {
	var rows []ObjectRow
	for _, obj := range s.inf.Indexer().List() {
		m := obj.GetObjectMeta()
		if filter != "" && !strings.Contains(m.Namespace+"/"+m.Name, filter) {
			continue
		}
		rows = append(rows, ObjectRow{Namespace: m.Namespace, Name: m.Name, RV: m.ResourceVersion})
	}
	slices.SortFunc(rows, func(a, b ObjectRow) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return len(rows), rows[:min(len(rows), limit)]
}

func (s informerSource[T]) handlers() []handlerStat {
	regs := s.inf.Registrations()
	out := make([]handlerStat, len(regs))
	for i, r := range regs {
		out[i] = handlerStat{name: r.Name(), synced: r.HasSynced(), backlog: r.Backlog()}
	}
	return out
}
