package cel

import (
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/structural"
)

// FuzzRule compiles an arbitrary rule against a small schema and runs it
// on an arbitrary object, with and without an old one: bad input is an
// error, never a panic or a run past the cost budget.
func FuzzRule(f *testing.F) {
	f.Add("self.min <= self.max", `{"spec":{"min":1,"max":2,"tags":["a"]}}`)
	f.Add("self.tags.isSorted() && self.tags.all(t, t.find('[a-z]+') != '')", `{"spec":{"tags":["b","a"]}}`)
	f.Add("self.max >= oldSelf.max", `{"spec":{"max":"x"}}`)
	f.Add("self.tags.map(x, self.tags.map(y, x + y)).size() > 0", `{"spec":{"tags":["a","b","c"]}}`)
	f.Add("quantity(self.tags[0]).add(2).isInteger() && semver(self.tags[1], true).major() > 0 && format.dns1123Label().validate(self.tags[0]).hasValue()", `{"spec":{"tags":["1.5Ki","v01.2"]}}`)
	f.Fuzz(func(t *testing.T, rule, object string) {
		schema := `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":` + string(jsonv.AppendString(nil, rule)) + `}],` +
			`"properties":{"min":{"type":"integer"},"max":{"type":"integer"},"tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10}}}}}}`
		s, err := structural.Parse([]byte(schema))
		if err != nil {
			return
		}
		rules, errs := Compile(s, "")
		if rules == nil || len(errs) > 0 {
			return
		}
		res, err := jsonv.Parse([]byte(object))
		if err != nil || res.Value.Kind != jsonv.Object {
			return
		}
		_ = rules.Check(nil, res.Value.Obj, nil)
		_ = rules.Check(nil, res.Value.Obj, res.Value.Clone().Obj)
	})
}
