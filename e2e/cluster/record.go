package cluster

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// Recorder keeps, per key, the sequence of states a scenario observed, and
// the aliases that replace server-chosen names in them. Safe for
// concurrent use.
type Recorder struct {
	mu   sync.Mutex
	seqs map[string][]string
	// alias maps a server-chosen name to its stand-in ("rs1", "pod2");
	// next counts the stand-ins given per prefix.
	alias map[string]string
	next  map[string]int
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{seqs: map[string][]string{}, alias: map[string]string{}, next: map[string]int{}}
}

// Observe appends state to key's sequence unless it repeats the last one:
// what a watch delivered, in its order.
func (r *Recorder) Observe(key, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seqs[key]
	if len(s) > 0 && s[len(s)-1] == state {
		return
	}
	r.seqs[key] = append(s, state)
}

// Last returns the last state of key's sequence ("" when there is none),
// before aliasing: the form Observe was given it in.
func (r *Recorder) Last(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seqs[key]
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// Any reports whether some state of some key satisfies match, before
// aliasing.
func (r *Recorder) Any(match func(key, state string) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, seq := range r.seqs {
		for _, st := range seq {
			if match(k, st) {
				return true
			}
		}
	}
	return false
}

// Step appends state to key's sequence: a snapshot after an awaited step.
func (r *Recorder) Step(key, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seqs[key] = append(r.seqs[key], state)
}

// Alias gives name the stand-in prefix+N, N counting from 1 in the order
// names are first given; a name keeps its first stand-in.
func (r *Recorder) Alias(prefix, name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.alias[name]; ok {
		return a
	}
	r.next[prefix]++
	a := prefix + strconv.Itoa(r.next[prefix])
	r.alias[name] = a
	return a
}

// Sequences returns every key's sequence with the aliased names replaced
// by their stand-ins (longest names first, so that a pod named after its
// ReplicaSet is replaced whole).
func (r *Recorder) Sequences() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.alias))
	for n := range r.alias {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	pairs := make([]string, 0, 2*len(names))
	for _, n := range names {
		pairs = append(pairs, n, r.alias[n])
	}
	rep := strings.NewReplacer(pairs...)
	clean := func(v string) string { return podOfRS.ReplaceAllString(rep.Replace(v), "$1-<pod>") }
	out := make(map[string][]string, len(r.seqs))
	for k, s := range r.seqs {
		o := make([]string, len(s))
		for i, v := range s {
			o[i] = clean(v)
		}
		out[clean(k)] = o
	}
	return out
}

// podOfRS matches the name of a ReplicaSet's pod once the ReplicaSet has
// its stand-in: which of its pods a controller creates or deletes first
// is not compared.
var podOfRS = regexp.MustCompile(`\b(rs[0-9]+)-[a-z0-9]{5}\b`)

// seen is the objects of one kind in a namespace as a watch delivered
// them, each with the order it first appeared in.
type seen[T metav1.Object] struct {
	objs  map[string]T
	first map[string]int
}

// list returns the objects in the order they first appeared.
func (s *seen[T]) list() []T {
	out := make([]T, 0, len(s.objs))
	for _, o := range s.objs {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b T) int { return s.first[a.GetName()] - s.first[b.GetName()] })
	return out
}

// follow records, on every event inf delivers, the state project makes of
// the objects seen so far under key. Handlers of one informer run one at a
// time in the watch's order, so the sequence is the servers' order of
// writes, each write seen.
func follow[T metav1.Object](inf cache.SharedIndexInformer, rec *Recorder, key string, project func(*seen[T]) string) error {
	var mu sync.Mutex
	s := &seen[T]{objs: map[string]T{}, first: map[string]int{}}
	put := func(obj any) {
		o, ok := obj.(T)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, ok := s.first[o.GetName()]; !ok {
			s.first[o.GetName()] = len(s.first)
		}
		s.objs[o.GetName()] = o
		if st := project(s); st != "" {
			rec.Observe(key, st)
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    put,
		UpdateFunc: func(_, obj any) { put(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			o, ok := obj.(T)
			if !ok {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			delete(s.objs, o.GetName())
			if st := project(s); st != "" {
				rec.Observe(key, st)
			}
		},
	})
	return err
}

// followEvents records every Event of the namespace about an object of
// one of kinds as it is created, under that object (see event). A repeated
// event that a recorder counts up instead of creating again is not a new
// state.
func followEvents(t *testing.T, s *Side, kinds ...string) {
	t.Helper()
	inf := s.Informers.Core().V1().Events().Informer()
	s.events.kinds = kinds
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if e, ok := obj.(*corev1.Event); ok && slices.Contains(kinds, e.InvolvedObject.Kind) {
				s.Rec.Step(event(e))
				s.events.delivered(e.UID)
			}
		},
	})
	if err != nil {
		t.Fatalf("%s: follow events: %v", s.Name, err)
	}
}

// awaitEvent waits until the events informer of followEvents has
// delivered an Event with reason about the object of kind: once it has,
// the event is in the recording, which listing the server's events would
// not promise.
func awaitEvent(t *testing.T, s *Side, kind, name, reason string) {
	t.Helper()
	prefix := "events " + kind + "/" + name + " by "
	s.Await(t, "a "+reason+" event about "+kind+" "+name, func(context.Context) (bool, error) {
		return s.Rec.Any(func(key, state string) bool {
			f := strings.Fields(state)
			return strings.HasPrefix(key, prefix) && len(f) > 1 && f[1] == reason
		}), nil
	})
}

// followedEvents is what followEvents has delivered, by UID, so that a
// scenario's end can wait for the events the server already holds.
type followedEvents struct {
	kinds []string
	mu    sync.Mutex
	uids  map[types.UID]bool
}

func (f *followedEvents) delivered(uid types.UID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.uids == nil {
		f.uids = map[types.UID]bool{}
	}
	f.uids[uid] = true
}

func (f *followedEvents) has(uid types.UID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uids[uid]
}

// settleEvents waits, when the scenario follows events, until every Event
// of a followed kind the server holds has reached the recording: a
// controller's last event may be written just before the state the
// scenario awaited, and still be on its way to the informer.
func settleEvents(t *testing.T, s *Side) {
	t.Helper()
	if len(s.events.kinds) == 0 {
		return
	}
	s.Await(t, "the recording to hold every event the server has", func(ctx context.Context) (bool, error) {
		list, err := s.Client.CoreV1().Events(s.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for i := range list.Items {
			e := &list.Items[i]
			if slices.Contains(s.events.kinds, e.InvolvedObject.Kind) && !s.events.has(e.UID) {
				return false, nil
			}
		}
		return true, nil
	})
}
