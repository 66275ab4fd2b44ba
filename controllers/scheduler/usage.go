package scheduler

import (
	"maps"
	"sync"

	"github.com/kubecache/kubecache/controllers/api"
)

// usage is the scheduler's running account of what each node runs: the
// pods the informer shows bound there and not finished, and the pods the
// scheduler bound there whose binding the informer has not shown yet
// (assumed). It is kept from pod events, so a scheduling decision reads
// one small record per node instead of every pod. It is safe for
// concurrent use.
type usage struct {
	// mu guards nodes and pods.
	mu    sync.Mutex
	nodes map[string]*nodeInfo
	pods  map[string]counted
}

// counted is where one pod is accounted, and what it takes.
type counted struct {
	node    string
	assumed bool
	cost    *podCost
}

func newUsage() *usage {
	return &usage{nodes: map[string]*nodeInfo{}, pods: map[string]counted{}}
}

// observe accounts p (the informer's view) under key: on its node while
// it is bound and not finished, nowhere otherwise, except that a pod the
// scheduler assumed stays on its node until the informer shows it bound.
func (u *usage) observe(key string, p *api.Pod) {
	node := p.Spec.NodeName
	if api.IsPodTerminal(p) {
		node = ""
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	cur, ok := u.pods[key]
	if ok && cur.assumed && p.Spec.NodeName == "" && !api.IsPodTerminal(p) {
		return
	}
	if ok && cur.node == node && !cur.assumed {
		return
	}
	cost := cur.cost
	if cost == nil {
		cost = costOf(p)
	}
	u.moveLocked(key, counted{node: node, cost: cost})
}

// assume accounts p on node before its binding is seen.
func (u *usage) assume(key string, p *api.Pod, node string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	cost := u.pods[key].cost
	if cost == nil {
		cost = costOf(p)
	}
	u.moveLocked(key, counted{node: node, assumed: true, cost: cost})
}

// unassume takes back an assumption whose binding failed.
func (u *usage) unassume(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if cur, ok := u.pods[key]; ok && cur.assumed {
		u.moveLocked(key, counted{cost: cur.cost})
	}
}

// forget removes a deleted pod.
func (u *usage) forget(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.moveLocked(key, counted{})
	delete(u.pods, key)
}

// isAssumed reports whether the scheduler bound key and waits to see it.
func (u *usage) isAssumed(key string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.pods[key].assumed
}

// costOfKey returns the cost recorded for key, or computes p's.
func (u *usage) costOfKey(key string, p *api.Pod) *podCost {
	u.mu.Lock()
	c := u.pods[key].cost
	u.mu.Unlock()
	if c == nil {
		c = costOf(p)
	}
	return c
}

// moveLocked moves key's account to next.
func (u *usage) moveLocked(key string, next counted) {
	if cur, ok := u.pods[key]; ok && cur.node != "" {
		if n := u.nodes[cur.node]; n != nil {
			n.sub(cur.cost)
		}
	}
	if next.node != "" {
		n := u.nodes[next.node]
		if n == nil {
			n = &nodeInfo{requested: map[string]int64{}, nonZero: map[string]int64{}}
			u.nodes[next.node] = n
		}
		n.add(next.cost)
	}
	u.pods[key] = next
}

// on returns a copy of what node runs, for node n.
func (u *usage) on(n *api.Node) *nodeInfo {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := &nodeInfo{node: n, requested: map[string]int64{}, nonZero: map[string]int64{}}
	if cur := u.nodes[n.Name]; cur != nil {
		out.requested, out.nonZero, out.pods = maps.Clone(cur.requested), maps.Clone(cur.nonZero), cur.pods
	}
	return out
}
