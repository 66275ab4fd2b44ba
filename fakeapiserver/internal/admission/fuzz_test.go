package admission

import (
	"testing"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// FuzzCheckPolicy feeds arbitrary expressions through a policy's write
// checks and one evaluation: errors, never a panic.
func FuzzCheckPolicy(f *testing.F) {
	f.Add(`object.spec.replicas <= 3`, `variables.x`, `"m " + string(object.spec.replicas)`)
	f.Add(`[1,2].all(x, x > 0)`, `object.?metadata.?name.orValue("")`, `1`)
	f.Add(`has(object.a) && object.a.b.c`, `params.data.max`, `request.userInfo.username`)
	f.Fuzz(func(t *testing.T, expr, variable, message string) {
		var p validatingPolicy
		p.Metadata.Name = "p"
		p.Spec.MatchConstraints = &matchResources{ResourceRules: []namedRule{{Operations: []string{"*"}, APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}
		p.Spec.Variables = []namedExpression{{Name: "x", Expression: variable}}
		p.Spec.Validations = []validationRule{{Expression: expr, MessageExpression: message}}
		p.Spec.ParamKind = &paramKind{APIVersion: "v1", Kind: "ConfigMap"}
		doc, err := jsonv.Parse(mustJSON(t, p))
		if err != nil {
			t.Fatal(err)
		}
		_ = CheckPolicy(doc.Value)
		cp := compilePolicy(p)
		obj, _ := jsonv.Parse([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":5}}`))
		d := &Dispatcher{}
		in := &inputs{a: &Attributes{Operation: "CREATE"}, object: toCEL(obj.Value), oldObject: nil, request: requestValue(&Attributes{}, matched{})}
		_ = d.validate(cp, in, &obj.Value)
	})
}
