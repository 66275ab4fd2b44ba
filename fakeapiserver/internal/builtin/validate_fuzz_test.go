package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// FuzzValidate runs every kind's validator, on create and on update,
// over arbitrary documents (seeded with the invalid objects of
// testdata/validation): whatever the body, they neither panic nor loop,
// and they never change the object.
func FuzzValidate(f *testing.F) {
	ins, _ := filepath.Glob("testdata/validation/*.in.json")
	for _, in := range ins {
		data, err := os.ReadFile(in)
		if err == nil {
			f.Add(string(data))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		res, err := jsonv.Parse([]byte(s))
		if err != nil || res.Value.Kind != jsonv.Object {
			return
		}
		m := &meta.ObjectMeta{Name: "fuzz"}
		if md := res.Value.Get("metadata"); md != nil {
			m.Name = str(md, "name")
		}
		before := string(jsonv.Marshal(res.Value))
		for gk := range validations {
			group, kind, _ := strings.Cut(gk, "/")
			obj := res.Value
			Validate(group, kind, m, &obj)
			ValidateUpdate(group, kind, m, &obj, &obj)
		}
		if after := string(jsonv.Marshal(res.Value)); after != before {
			t.Fatalf("validation changed the object:\n%s\n%s", before, after)
		}
	})
}
