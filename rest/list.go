package rest

import (
	"context"
	"fmt"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest/internal/listscan"
)

// List sends the request (a GET on a collection) and streams the list in
// the response: each element of items is handed to each as raw JSON while
// the body is still being read, so the whole list is never held in memory.
// The slice is only valid during the call; decode or copy what you keep.
//
// List returns the list's kind/apiVersion and its metadata (resourceVersion,
// continue, remainingItemCount). If each returns an error, List stops
// reading, closes the response and returns that error wrapped. A non-2xx
// answer is a *StatusError, as with Do.
//
// A large list may take long: Config.Timeout bounds only the silences (no
// headers, or no byte of the body, for that long fails the List with
// ErrServerSilent); bound the whole call with ctx or Request.Timeout. A
// response of more than Config.MaxListBytes bytes or MaxListItems items
// fails with ErrResponseTooLarge.
func (r *Request) List(ctx context.Context, each func(item []byte) error) (meta.TypeMeta, meta.ListMeta, error) {
	return r.ListItems(ctx, func(_ meta.TypeMeta, item []byte) error { return each(item) })
}

// ListItems is List, but each also receives the list's kind and apiVersion
// as read so far. Real servers write them before items, so a caller can give
// the items of a built-in list (which carry no kind of their own) the list's
// kind minus "List" as it decodes them.
func (r *Request) ListItems(ctx context.Context, each func(list meta.TypeMeta, item []byte) error) (meta.TypeMeta, meta.ListMeta, error) {
	tm, lm, _, err := r.listStream(ctx, "application/json", func(list meta.TypeMeta, item []byte, wire Wire) error {
		if wire != WireJSON {
			return fmt.Errorf("%w: the server answered a JSON list in %s (use ListWire)", ErrUnexpectedWire, wire)
		}
		return each(list, item)
	})
	return tm, lm, err
}

// listStream sends the list request with accept as its default Accept
// header and streams the items of the response, JSON or protobuf as its
// Content-Type says, to each with the response's wire format. It returns
// how the response was encoded.
func (r *Request) listStream(ctx context.Context, accept string, each func(list meta.TypeMeta, item []byte, wire Wire) error) (meta.TypeMeta, meta.ListMeta, Encoding, error) {
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	what := r.describe("list")
	var guard *silenceGuard
	if d := r.c.timeout; d > 0 {
		ctx, guard = newSilenceGuard(ctx, d, "a list")
		defer guard.stop()
	}
	fail := func(err error) error {
		if guard != nil {
			err = guard.explain(ctx, err)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	resp, err := r.send(ctx, accept)
	if err != nil {
		return meta.TypeMeta{}, meta.ListMeta{}, Encoding{}, fail(err)
	}
	if !isSuccess(resp.StatusCode) {
		return meta.TypeMeta{}, meta.ListMeta{}, Encoding{}, fmt.Errorf("%s: %w", what, responseError(resp))
	}
	body := &boundedBody{r: resp.Body, limit: r.c.maxListBytes, what: "Config.MaxListBytes", guard: guard}
	defer body.Close()
	if guard != nil {
		guard.progress()
	}
	enc := encodingOf(resp)
	wire := enc.Wire
	items, maxItems := 0, r.c.maxListItems
	counted := func(list meta.TypeMeta, item []byte) error {
		if items++; items > maxItems {
			return fmt.Errorf("%w: more than %d items (Config.MaxListItems)", ErrResponseTooLarge, maxItems)
		}
		return each(list, item, wire)
	}
	var tm meta.TypeMeta
	var lm meta.ListMeta
	if wire == WireProtobuf {
		tm, lm, err = listscan.ScanProtobuf(body, listscan.MaxItemSize, counted)
	} else {
		tm, lm, err = listscan.ScanTyped(body, counted)
	}
	if err != nil {
		return tm, lm, enc, fail(err)
	}
	return tm, lm, enc, nil
}

// ListAs sends the request (a GET on a collection) and decodes the list
// into a meta.List[T], item by item as the body streams in. Items that
// arrive without kind and apiVersion (the items of built-in lists) get
// them from the list's kind ("PodList" → "Pod"). It reads one page: follow
// ListMeta.Continue with the continue parameter for the next.
func ListAs[T meta.Object](ctx context.Context, r *Request) (meta.List[T], error) {
	list := meta.List[T]{Items: []T{}}
	n := 0
	tm, lm, err := r.List(ctx, func(item []byte) error {
		obj, err := meta.Decode[T](item)
		if err != nil {
			return fmt.Errorf("items[%d]: %w", n, err)
		}
		list.Items = append(list.Items, obj)
		n++
		return nil
	})
	if err != nil {
		return meta.List[T]{}, err
	}
	list.TypeMeta, list.ListMeta = tm, lm
	list.FillItemTypeMeta()
	return list, nil
}
