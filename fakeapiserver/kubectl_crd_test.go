package fakeapiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectl on custom resources reads the schemas the server publishes:
// client-side validation, explain and diff all need the CRD's document.

func TestKubectlCustomResourceSchemas(t *testing.T) {
	s := NewForTest(t, Options{})
	k := newKubectl(t, s)
	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io/gizmos.example.com created\n", k.run("apply", "-f", k.file("crd.yaml", gizmoCRD)))
	obj := k.file("g.yaml", "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g1, namespace: default}\nspec: {size: 2, color: red, port: 8080}\n")
	out, errOut, err := k.try("apply", "-f", obj)
	require.NoError(t, err, "stderr: %s", errOut)
	assert.Equal(t, "gizmo.example.com/g1 created\n", out)
	assert.Empty(t, errOut)
	assert.Equal(t, "gizmo.example.com/g1 unchanged\n", k.run("apply", "-f", obj))

	out = k.run("explain", "gizmos.spec")
	assert.Contains(t, out, "KIND:       Gizmo")
	assert.Contains(t, out, "Spec is what the gizmo should be.")
	assert.Contains(t, out, "size\t<integer> -required-")
	assert.Contains(t, out, "Size in units.")
	assert.Contains(t, out, "Color of the casing.")
	out = k.run("explain", "gizmos")
	assert.Contains(t, out, "A Gizmo is a thing that whirrs.")

	out, errOut, err = k.try("diff", "-f", obj)
	assert.NoError(t, err, "no difference: exit 0; stdout %s", out)
	assert.Empty(t, out)
	assert.Empty(t, errOut, "kubectl diff warns when it cannot find the schema's fields")

	// kubectl's own validation reads the schema too: an unknown field is
	// refused by the server's strict field validation, naming the field.
	bad := k.file("bad.yaml", "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g2, namespace: default}\nspec: {size: 2, shape: round}\n")
	_, errOut, err = k.try("apply", "-f", bad)
	require.Error(t, err)
	assert.Contains(t, errOut, `unknown field "spec.shape"`)
}
