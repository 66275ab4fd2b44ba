package informer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/informer"
	"github.com/kubecache/kubecache/meta"
)

func TestPredicatesOnUpdates(t *testing.T) {
	base := meta.ObjectMeta{Name: "a", ResourceVersion: "5", Generation: 1,
		Labels: map[string]string{"app": "x"}, Annotations: map[string]string{"a": "1", "b": "2"}}
	with := func(f func(m *meta.ObjectMeta)) *meta.ObjectMeta {
		m := base
		m.Labels = map[string]string{"app": "x"}
		m.Annotations = map[string]string{"a": "1", "b": "2"}
		f(&m)
		return &m
	}
	same := with(func(*meta.ObjectMeta) {})
	gen := with(func(m *meta.ObjectMeta) { m.Generation = 2; m.ResourceVersion = "6" })
	label := with(func(m *meta.ObjectMeta) { m.Labels["app"] = "y"; m.ResourceVersion = "6" })
	noLabels := with(func(m *meta.ObjectMeta) { m.Labels = nil; m.ResourceVersion = "6" })
	annB := with(func(m *meta.ObjectMeta) { m.Annotations["b"] = "3"; m.ResourceVersion = "6" })
	annGone := with(func(m *meta.ObjectMeta) { delete(m.Annotations, "a"); m.ResourceVersion = "6" })
	rv := with(func(m *meta.ObjectMeta) { m.ResourceVersion = "6" })

	cases := []struct {
		name string
		p    informer.Predicate
		want map[*meta.ObjectMeta]bool
	}{
		{"generation", informer.GenerationChanged(), map[*meta.ObjectMeta]bool{same: false, gen: true, label: false, rv: false}},
		{"labels", informer.LabelsChanged(), map[*meta.ObjectMeta]bool{same: false, gen: false, label: true, noLabels: true, annB: false}},
		{"any annotation", informer.AnnotationChanged(), map[*meta.ObjectMeta]bool{same: false, annB: true, annGone: true, label: false}},
		{"annotation a", informer.AnnotationChanged("a"), map[*meta.ObjectMeta]bool{same: false, annB: false, annGone: true}},
		{"resourceVersion", informer.ResourceVersionChanged(), map[*meta.ObjectMeta]bool{same: false, rv: true, gen: true}},
		{"and", informer.And(informer.ResourceVersionChanged(), informer.Not(informer.LabelsChanged())), map[*meta.ObjectMeta]bool{same: false, rv: true, label: false, gen: true}},
		{"or", informer.Or(informer.GenerationChanged(), informer.LabelsChanged()), map[*meta.ObjectMeta]bool{same: false, gen: true, label: true, annB: false}},
		{"empty and", informer.And(), map[*meta.ObjectMeta]bool{same: true}},
		{"empty or", informer.Or(), map[*meta.ObjectMeta]bool{same: false, gen: false}},
		{"not", informer.Not(informer.GenerationChanged()), map[*meta.ObjectMeta]bool{same: true, gen: false}},
	}
	for _, c := range cases {
		for newObj, want := range c.want {
			require.NotNil(t, c.p.Update, c.name)
			assert.Equal(t, want, c.p.Update(&base, newObj), "%s: update to %+v", c.name, *newObj)
		}
	}
}

func TestPredicatesOnAddsAndDeletes(t *testing.T) {
	m := &meta.ObjectMeta{Name: "a"}
	pass := func(p informer.Predicate) (add, del bool) {
		add = p.Add == nil || p.Add(m, false)
		del = p.Delete == nil || p.Delete(m, false)
		return add, del
	}
	for _, p := range []informer.Predicate{informer.GenerationChanged(), informer.LabelsChanged(), informer.AnnotationChanged("x"), informer.ResourceVersionChanged(),
		informer.And(informer.GenerationChanged(), informer.LabelsChanged()), informer.Or(informer.GenerationChanged())} {
		add, del := pass(p)
		assert.True(t, add)
		assert.True(t, del)
	}
	add, del := pass(informer.Not(informer.GenerationChanged()))
	assert.False(t, add, "Not drops what its operand passes without asking")
	assert.False(t, del)
	onlyLive := informer.Predicate{Add: func(_ *meta.ObjectMeta, initial bool) bool { return !initial }}
	assert.False(t, informer.And(onlyLive).Add(m, true))
	assert.True(t, informer.And(onlyLive).Add(m, false))
}

// TestHandlerPredicateFiltersLiveEvents runs a handler with a predicate
// against the fake server: an update that changes only data is skipped,
// one that changes a label or the watched annotation is delivered, and the
// handler's counters say so.
func TestHandlerPredicateFiltersLiveEvents(t *testing.T) {
	e := newEnv(t)
	a := e.create("default", "a", nil)
	inf := e.informerFor("default", informer.Options[*ConfigMap]{})
	rec := newRecorder()
	plain := newRecorder()
	reg, err := inf.AddEventHandler(rec, informer.HandlerOptions{
		Predicate: informer.Or(informer.LabelsChanged(), informer.AnnotationChanged("owner")),
	})
	require.NoError(t, err)
	_, err = inf.AddEventHandler(plain, informer.HandlerOptions{})
	require.NoError(t, err)
	run(t, inf)
	waitSynced(t, inf)

	a1 := e.update(a, map[string]string{"k": "1"}) // data only: skipped
	a1.Labels = map[string]string{"tier": "web"}
	labelled := e.update(a1, a1.Data)
	labelled.Annotations = map[string]string{"note": "x"}
	noted := e.update(labelled, labelled.Data) // another annotation: skipped
	noted.Annotations["owner"] = "me"
	owned := e.update(noted, noted.Data)

	plain.waitLen(t, 5)
	events := rec.waitLen(t, 3)
	assert.Equal(t, []string{
		"add default/a " + a.ResourceVersion + " initial",
		"update default/a " + a1.ResourceVersion + "->" + labelled.ResourceVersion,
		"update default/a " + noted.ResourceVersion + "->" + owned.ResourceVersion,
	}, events)
	assert.Equal(t, uint64(3), reg.Backlog().Delivered)
}

// ExamplePredicate composes ready-made predicates: a handler with this one
// hears of adds and deletes, and of updates that change the spec
// (generation) or the "owner" annotation, but not of status-only updates
// or resyncs.
func ExamplePredicate() {
	p := informer.Or(informer.GenerationChanged(), informer.AnnotationChanged("owner"))
	opts := informer.HandlerOptions{Name: "reconciler", Predicate: p}

	old := &meta.ObjectMeta{Name: "web", Generation: 3, ResourceVersion: "10"}
	status := &meta.ObjectMeta{Name: "web", Generation: 3, ResourceVersion: "11"}
	spec := &meta.ObjectMeta{Name: "web", Generation: 4, ResourceVersion: "12"}
	owner := &meta.ObjectMeta{Name: "web", Generation: 3, ResourceVersion: "13", Annotations: map[string]string{"owner": "team-a"}}
	fmt.Println("status only:", opts.Predicate.Update(old, status))
	fmt.Println("spec:", opts.Predicate.Update(old, spec))
	fmt.Println("owner:", opts.Predicate.Update(old, owner))
	fmt.Println("resync:", opts.Predicate.Update(old, old))
	fmt.Println("add:", opts.Predicate.Add(old, false))
	// Output:
	// status only: false
	// spec: true
	// owner: true
	// resync: false
	// add: true
}
