package apply_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// Two managers apply to one ConfigMap: the second may add its own key,
// but changing the first one's value is a conflict until it forces it.
func Example() {
	typ, _ := apply.ForKind(openapi.Builtin(), openapi.GVK{Version: "v1", Kind: "ConfigMap"})
	req := func(manager string, force bool) apply.Request {
		return apply.Request{Manager: manager, APIVersion: "v1", Kind: "ConfigMap", Force: force,
			Now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	}

	first, _ := apply.Apply(jsonv.Value{}, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n"), typ, req("ops", false))

	_, err := apply.Apply(first.Object, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: slow, extra: x}\n"), typ, req("dev", false))
	var conflict *apply.ConflictError
	fmt.Println(errors.As(err, &conflict), err)

	second, _ := apply.Apply(first.Object, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: slow, extra: x}\n"), typ, req("dev", true))
	fmt.Println(string(jsonv.Marshal(*second.Object.Get("data"))))
	fmt.Println(string(second.ManagedFields))
	// Output:
	// true Apply failed with 1 conflict: conflict with "ops": .data.mode
	// {"mode":"slow","extra":"x"}
	// [{"manager":"dev","operation":"Apply","apiVersion":"v1","time":"2025-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:extra":{},"f:mode":{}}}}]
}
