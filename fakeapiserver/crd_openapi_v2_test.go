package fakeapiserver

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

const mediaOpenAPIV2Protobuf = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// TestOpenAPIV2Protobuf: /openapi/v2 answers the protobuf kubectl and
// client-go ask for (either spelling) with the encoding of the JSON
// document it serves, both under one ETag, a matching If-None-Match is
// 304, and an Accept naming neither form is 406 with no body.
func TestOpenAPIV2Protobuf(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, yamlToJSON(t, gizmoCRD))
	js := c.get("/openapi/v2", "Accept", "application/json")
	require.Equal(t, http.StatusOK, js.code)
	assert.Equal(t, "application/json", js.header.Get("Content-Type"))
	etag := js.header.Get("Etag")
	assert.Regexp(t, `^"[0-9A-F]{128}"$`, etag, "the document's SHA-512, quoted")
	want, err := openapi.SwaggerProto(js.body)
	require.NoError(t, err)
	assert.True(t, bytes.Contains(want, []byte("com.example.v1.Gizmo")), "the custom kind is in it")

	for _, accept := range []string{
		"application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
		mediaOpenAPIV2Protobuf,
		"application/json;q=0.5, " + mediaOpenAPIV2Protobuf,
	} {
		pb := c.get("/openapi/v2", "Accept", accept)
		require.Equal(t, http.StatusOK, pb.code, accept)
		assert.Equal(t, mediaOpenAPIV2Protobuf, pb.header.Get("Content-Type"), accept)
		assert.Equal(t, etag, pb.header.Get("Etag"), "one ETag for both forms (Vary: Accept)")
		assert.Equal(t, "Accept", pb.header.Get("Vary"))
		assert.NotEmpty(t, pb.header.Get("Last-Modified"))
		assert.True(t, bytes.Equal(want, pb.body), "%s: the protobuf of the JSON document (%d bytes, want %d)", accept, len(pb.body), len(want))
	}
	assert.Equal(t, "application/json", c.get("/openapi/v2", "Accept", "*/*").header.Get("Content-Type"))
	assert.Equal(t, "application/json", c.get("/openapi/v2", "Accept", mediaOpenAPIV2Protobuf+";q=0.5, application/json").header.Get("Content-Type"))

	r := c.get("/openapi/v2", "Accept", mediaOpenAPIV2Protobuf, "If-None-Match", etag)
	assert.Equal(t, http.StatusNotModified, r.code)
	assert.Empty(t, r.body)
	r = c.get("/openapi/v2", "Accept", "application/xml")
	assert.Equal(t, http.StatusNotAcceptable, r.code)
	assert.Empty(t, r.body)

	// A change of the CRDs is a new document under a new ETag.
	require.Equal(t, http.StatusOK, c.do(http.MethodDelete, crdPath+"/gizmos.example.com", "").code)
	r = c.get("/openapi/v2", "Accept", mediaOpenAPIV2Protobuf, "If-None-Match", etag)
	require.Equal(t, http.StatusOK, r.code)
	assert.NotEqual(t, etag, r.header.Get("Etag"))
	assert.False(t, bytes.Contains(r.body, []byte("com.example.v1.Gizmo")), "the deleted kind is gone")
}

// TestNoOpenAPIV3 is the server without OpenAPI v3: 404 for the index
// and every group version.
func TestNoOpenAPIV3(t *testing.T) {
	_, c := newTestServer(t, Options{NoOpenAPIV3: true})
	assert.Equal(t, http.StatusNotFound, c.get("/openapi/v3").code)
	assert.Equal(t, http.StatusNotFound, c.get("/openapi/v3/apis/apps/v1").code)
	assert.Equal(t, http.StatusOK, c.get("/openapi/v2").code)
}

// TestKubectlCustomResourceSchemasFromV2: against a server without
// OpenAPI v3, kubectl reads /openapi/v2 in protobuf for what it reads
// from v3 elsewhere: strict validation (the server's fieldValidation,
// which the v2 operations advertise), explain with the CRD's
// descriptions, apply and diff without warnings.
func TestKubectlCustomResourceSchemasFromV2(t *testing.T) {
	s := NewForTest(t, Options{NoOpenAPIV3: true})
	k := newKubectl(t, s)
	k.run("apply", "-f", k.file("crd.yaml", gizmoCRD))
	obj := k.file("g.yaml", "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g1, namespace: default}\nspec: {size: 2, color: red, port: 8080}\n")
	out, errOut, err := k.try("create", "--validate=strict", "-f", obj)
	require.NoError(t, err, "stderr: %s", errOut)
	assert.Equal(t, "gizmo.example.com/g1 created\n", out)
	assert.Empty(t, errOut)

	bad := k.file("bad.yaml", "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g2, namespace: default}\nspec: {size: 2, shape: round}\n")
	_, errOut, err = k.try("create", "--validate=strict", "-f", bad)
	require.Error(t, err)
	assert.Contains(t, errOut, `unknown field "spec.shape"`)
	assert.NotContains(t, errOut, "content type")

	out = k.run("explain", "gizmos.spec")
	assert.Contains(t, out, "Spec is what the gizmo should be.")
	assert.Contains(t, out, "Size in units.")
	assert.Contains(t, out, "Color of the casing.")

	out, errOut, err = k.try("diff", "-f", obj)
	assert.NoError(t, err, "no difference: exit 0; stdout %s", out)
	assert.Empty(t, errOut, "kubectl diff warns when it cannot find the schema's fields")
}
