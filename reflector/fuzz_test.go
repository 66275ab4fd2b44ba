package reflector

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/clock"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// FuzzDecoder feeds arbitrary bytes, as a server could send them, to the
// decoder a ListerWatcher over HTTP uses for each item and event: it must
// never panic, must reuse the known object exactly when identity and
// resourceVersion match, and must otherwise agree with meta.Decode.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"data":{"v":"1"}}`))
	f.Add([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"6"}}`))
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":5}}`))
	f.Add([]byte(`{"metadata":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"metadata":{"name":"\u0061","namespace":"ns","resourceVersion":"5"},"data":{"v":7}}`))
	stored := &ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "5"}}
	known := func(ns, name, rv string) (*ConfigMap, bool) {
		return stored, ns == "ns" && name == "a" && rv == "5"
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, fresh, err := decoder[*ConfigMap](known)(raw)
		assert.Equal(t, got != stored, fresh || err != nil)
		want, werr := meta.Decode[*ConfigMap](raw)
		if got == stored {
			p, perr := meta.PeekMeta(raw)
			require.NoError(t, perr, "reused an object for bytes PeekMeta rejects")
			assert.Equal(t, meta.PeekedMeta{Namespace: "ns", Name: "a", ResourceVersion: "5", Kind: p.Kind, APIVersion: p.APIVersion, UID: p.UID}, p)
			return
		}
		if werr != nil {
			assert.Error(t, err, "decoder accepted what meta.Decode rejects")
			return
		}
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
}

// FuzzCompareRV checks that resourceVersion comparison is an order on the
// strings it can compare, and refuses to compare anything else.
func FuzzCompareRV(f *testing.F) {
	for _, s := range [][2]string{{"1", "2"}, {"10", "9"}, {"", "1"}, {"abc", "1"}, {"007", "7"}, {"18446744073709551615", "1"}, {"-1", "1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, okAB := compareRV(a, b)
		ba, okBA := compareRV(b, a)
		require.Equal(t, okAB, okBA)
		if !okAB {
			assert.False(t, olderRV(a, b) || olderRV(b, a), "olderRV on incomparable %q, %q", a, b)
			return
		}
		assert.Equal(t, -ab, ba, "compareRV(%q, %q) not antisymmetric", a, b)
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		assert.Equal(t, x < y, olderRV(a, b))
	})
}

// FuzzParseResource checks that any input either parses into parts that
// compose back into a resource, or fails with ErrInvalidRequest; never a
// panic.
func FuzzParseResource(f *testing.F) {
	for _, s := range []string{"pods", "deployments.v1.apps", "apps/v1/deployments", "v1/pods", "x.v1.", "a/b/c/d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		g, v, n, err := ParseResource(in)
		if err != nil {
			return
		}
		assert.NotEmpty(t, v)
		assert.NotEmpty(t, n)
		g2, v2, n2, err := ParseResource(g + "/" + v + "/" + n)
		if g == "" {
			g2, v2, n2, err = ParseResource(v + "/" + n)
		}
		require.NoError(t, err, "parts of %q do not compose", in)
		assert.Equal(t, []string{g, v, n}, []string{g2, v2, n2})
	})
}

// FuzzWatchEvents runs a reflector through a list and then watch events
// decoded from the fuzzer's bytes (any type, name, resourceVersion — numeric
// or not — and ERROR events), and checks what must hold whatever a server
// sends: no panic, no object's resourceVersion moves backwards in the store,
// the resume point never moves backwards, and ListAndWatch returns.
func FuzzWatchEvents(f *testing.F) {
	f.Add([]byte{3, 1, 5, 2, 7, 0, 1, 9, 1, 1, 8, 2, 2, 12, 3, 0, 20})
	f.Add([]byte{0, 4, 0, 4, 1, 0, 255, 5, 3})
	f.Add([]byte{1, 0, 1, 0, 0, 1, 2, 0, 3, 2, 0, 2})
	f.Fuzz(func(t *testing.T, script []byte) {
		next := func() int {
			if len(script) == 0 {
				return 0
			}
			b := script[0]
			script = script[1:]
			return int(b)
		}
		rv := func() string {
			n := next()
			if n == 255 {
				return "x" + strconv.Itoa(next()) // not a number
			}
			return strconv.Itoa(n)
		}
		var items []*Obj
		for range next() % 8 {
			items = append(items, obj("o"+strconv.Itoa(next()%5), rv()))
		}
		listRV := rv()
		w := newFakeWatch()
		for n := 0; len(script) > 0 && n < cap(w.ch)-1; n++ {
			switch next() % 6 {
			case 0:
				w.add(obj("o"+strconv.Itoa(next()%5), rv()))
			case 1:
				w.modify(obj("o"+strconv.Itoa(next()%5), rv()))
			case 2:
				w.del(obj("o"+strconv.Itoa(next()%5), rv()))
			case 3:
				w.bookmark(rv(), next()%2 == 0)
			case 4:
				w.fail(meta.NewStatus(int32(400+next()), meta.ReasonUnknown, "fuzz"))
			case 5:
				w.send(watch.Event[*Obj]{Type: watch.EventType("BOGUS" + strconv.Itoa(next()))})
			}
		}
		w.end()

		store := newMapStore(t) // fails the test if a resourceVersion goes backwards
		watched := false
		lw := &ListWatch[*Obj]{
			ListFunc: func(ctx context.Context, opts ListOptions, known Known[*Obj], emit func(*Obj) error) (meta.ListMeta, error) {
				for _, it := range items {
					if err := emit(it); err != nil {
						return meta.ListMeta{}, err
					}
				}
				return meta.ListMeta{ResourceVersion: listRV}, nil
			},
			WatchFunc: func(ctx context.Context, opts ListOptions, known Known[*Obj]) (watch.Interface[*Obj], error) {
				if watched {
					return nil, meta.NewStatus(403, meta.ReasonForbidden, "script over")
				}
				watched = true
				return w, nil
			},
		}
		var resume []string
		r, err := NewReflector[*Obj](lw, store, Options{DisableStreamingList: true, Clock: clock.NewFake(time.Unix(0, 0)),
			Trace: func(e TraceEvent) {
				if s, ok := e.(StateChanged); ok {
					if wt, ok := s.To.(Watching); ok {
						resume = append(resume, wt.ResourceVersion)
					}
				}
			}})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err = r.ListAndWatch(ctx)
		require.NoError(t, ctx.Err(), "ListAndWatch did not return")
		var rerr *Error
		if err != nil && !errors.As(err, &rerr) {
			t.Fatalf("ListAndWatch returned %T %v, want an *Error", err, err)
		}
		for i := 1; i < len(resume); i++ {
			assert.False(t, olderRV(resume[i], resume[i-1]), "resume point went back: %v", resume)
		}
	})
}
