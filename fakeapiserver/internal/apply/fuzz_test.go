package apply

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// FuzzApply feeds arbitrary configurations (the body of an apply request)
// and live objects through Apply with the Deployment type and without a
// type. It must never panic; it fails only with *Error or
// *ConflictError; a result carries managedFields that decode again.
func FuzzApply(f *testing.F) {
	for _, c := range loadCases(f) {
		live := []byte("null")
		for _, st := range c.Steps {
			if st.Type == "apply" {
				f.Add(live, []byte(st.Body), false)
			}
			if st.Status < 300 {
				live = st.Response
			}
		}
	}
	f.Add([]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`), []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"a","ports":[{"containerPort":1}]}]}}}}`), true)
	deploy, _ := ForKind(openapi.Builtin(), openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	f.Fuzz(func(t *testing.T, live, config []byte, force bool) {
		lv := jsonv.Value{}
		if res, err := jsonv.Parse(live); err == nil {
			lv = res.Value
		}
		for _, typ := range []Type{deploy, {}} {
			r := Request{Manager: "fuzz", APIVersion: "apps/v1", Kind: "Deployment", StatusSubresource: true, Force: force, Now: now}
			res, err := Apply(lv, config, typ, r)
			if err != nil {
				var ae *Error
				var ce *ConflictError
				if !errors.As(err, &ae) && !errors.As(err, &ce) {
					t.Fatalf("Apply(%q, %q) failed with %T %v", live, config, err, err)
				}
				continue
			}
			if res.ManagedFields != nil {
				if _, err := decodeManaged(res.ManagedFields); err != nil {
					t.Fatalf("Apply(%q, %q) wrote managedFields %s that do not decode: %v", live, config, res.ManagedFields, err)
				}
			}
			_ = Update(lv, res.Object, typ, r)
		}
	})
}

// FuzzDecodeManagedFields feeds arbitrary managedFields (a client may
// send them on a write) through the decoder: no panic, and whatever
// decodes encodes to something that decodes to the same sets.
func FuzzDecodeManagedFields(f *testing.F) {
	f.Add([]byte(`[{"manager":"m","operation":"Apply","apiVersion":"v1","time":"2025-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}}]`))
	f.Add([]byte(`[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},"f:image":{}}}}}}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		entries, err := decodeManaged(raw)
		if err != nil {
			return
		}
		again, err := decodeManaged(encodeManaged(entries))
		if err != nil {
			t.Fatalf("re-encoding %q gave undecodable managedFields: %v", raw, err)
		}
		before, after := map[string]int{}, map[string]int{}
		for _, e := range entries {
			before[e.key()] = len(e.Set)
		}
		for _, e := range again {
			after[e.key()] = len(e.Set)
		}
		for k, n := range after {
			if before[k] != n {
				b, _ := json.Marshal(before)
				a, _ := json.Marshal(after)
				t.Fatalf("round trip of %q changed the sets: %s then %s", raw, b, a)
			}
		}
	})
}
