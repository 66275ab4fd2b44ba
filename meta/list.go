package meta

import "strings"

// List is a list response: {"kind":"PodList","apiVersion":"v1",
// "metadata":{"resourceVersion":...,"continue":...},"items":[...]}.
//
// Items of built-in lists carry no kind or apiVersion on the wire, while
// items of custom-resource lists do; FillItemTypeMeta makes them uniform.
type List[T Object] struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Items    []T `json:"items"`
}

// ItemKind returns the kind of the list's items: the list's kind without
// its "List" suffix ("Pod" for "PodList"), or "" if the kind does not end
// in "List".
func (l *List[T]) ItemKind() string {
	kind, ok := strings.CutSuffix(l.Kind, "List")
	if !ok {
		return ""
	}
	return kind
}

// FillItemTypeMeta sets kind and apiVersion on every item that has none,
// from the list's own: the type is taken from the list, as a client must
// for built-in lists. Items that carry their own TypeMeta, and nil items,
// are left alone.
func (l *List[T]) FillItemTypeMeta() {
	kind := l.ItemKind()
	for _, item := range l.Items {
		if IsNil(item) {
			continue
		}
		tm := item.GetTypeMeta()
		if tm.Kind != "" || tm.APIVersion != "" {
			continue
		}
		tm.Kind, tm.APIVersion = kind, l.APIVersion
	}
}
