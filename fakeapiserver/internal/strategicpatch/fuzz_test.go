package strategicpatch

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

// FuzzApply feeds arbitrary originals and patches (a patch is network
// input) through Apply with the Deployment schema and without a schema.
// Apply must never panic; a failure must be an *Error unless the original
// itself is malformed; a success must be valid JSON and reproducible.
func FuzzApply(f *testing.F) {
	if raw, err := os.ReadFile("testdata/cases.golden.json"); err == nil {
		var cases []recordedCase
		if json.Unmarshal(raw, &cases) == nil {
			for _, c := range cases {
				if len(c.Steps) == 2 {
					f.Add([]byte(c.Steps[0].Response), []byte(c.Steps[1].Body))
				}
			}
		}
	}
	f.Add([]byte(`{"metadata":{"finalizers":["a"]}}`), []byte(`{"metadata":{"$setElementOrder/finalizers":["b","a"],"finalizers":["b"]}}`))
	f.Add([]byte(`{"a":[1,{"b":2}]}`), []byte(`{"a":[{"$patch":"replace"}]}`))
	schema, _ := ForKind(openapi.Builtin(), openapi.GVK{Group: "apps", Version: "v1", Kind: "Deployment"})
	f.Fuzz(func(t *testing.T, original, patch []byte) {
		for _, s := range []Schema{schema, NoSchema} {
			out, err := Apply(original, patch, s)
			if err != nil {
				var pe *Error
				if !errors.As(err, &pe) {
					if _, perr := jsonv.Parse(original); perr == nil {
						t.Fatalf("Apply(%q, %q) failed with %v (%T), not an *Error, on a valid original", original, patch, err, err)
					}
				}
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("Apply(%q, %q) = %q, not JSON", original, patch, out)
			}
			again, err := Apply(original, patch, s)
			if err != nil || string(again) != string(out) {
				t.Fatalf("Apply(%q, %q) is not reproducible: %q then %q, %v", original, patch, out, again, err)
			}
		}
	})
}
