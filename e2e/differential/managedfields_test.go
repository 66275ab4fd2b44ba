package differential

import "testing"

// TestManagedFieldsReset asks both servers to clear an object's
// managedFields (a list of one empty entry, then an empty list in a
// whole-object write): the object keeps none through later updates, and
// the next apply records what it holds under before-first-apply, maps
// included; updates after it are tracked again.
func TestManagedFieldsReset(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-mfreset")
	const merge = "application/merge-patch+json"
	c.Setup(createCM("a", "k", "1"))
	c.Compare("cleared by one empty entry", patch(cms+"/a", merge, `{"metadata":{"managedFields":[{}]}}`))
	c.Compare("an update records nothing", patch(cms+"/a", merge, `{"metadata":{"labels":{"x":"y"}}}`))
	c.Compare("cleared by an empty list", put(cms+"/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","managedFields":[]},"data":{"k":"2"}}`))
	c.Compare("the first apply", patch(cms+"/a?fieldManager=me", "application/apply-patch+yaml",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"e":"f"}}`))
	c.Compare("an update after it", patch(cms+"/a", merge, `{"data":{"g":"h"}}`))
}
