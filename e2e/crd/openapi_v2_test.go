package crd

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"k8s.io/client-go/discovery"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// v2CRD has what Swagger 2.0 cannot say: a default, a nullable value, an
// int-or-string, a value validation under anyOf, values keeping unknown
// fields, an embedded resource.
var v2CRD = e2eCRD("v2probes", "V2Probe", `
            description: What the probe holds.
            required: [size, note]
            properties:
              size: {type: integer, description: Size in units., minimum: 1, default: 3}
              color: {type: string, enum: [red, blue]}
              note: {type: string, nullable: true}
              port: {x-kubernetes-int-or-string: true}
              either: {type: string, anyOf: [{minLength: 1}, {pattern: "^a"}]}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
              tmpl: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`)

const (
	v2ProbeKind        = "io.kubecache.e2e.v1.V2Probe"
	mediaOpenAPIV2Pb   = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaOpenAPIV2PbAt = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// TestOpenAPIV2Protobuf: /openapi/v2 in the protobuf kubectl and
// client-go ask for: client-go's discovery decodes it and finds the CRD's
// kind; it is the message gnostic makes of the JSON document served
// under the same ETag, byte for byte; and the kind's schema is narrowed
// for Swagger 2.0 as the real server narrows it.
func TestOpenAPIV2Protobuf(t *testing.T) {
	c := newClient(t)
	installCRD(t, c, v2CRD, "/apis/e2e.kubecache.io/v1/namespaces/default/v2probes")
	dc, err := discovery.NewDiscoveryClientForConfig(target.Get(t).RESTConfig(t))
	require.NoError(t, err)
	var doc *openapi_v2.Document
	eventually(t, v2ProbeKind+" in /openapi/v2", func() bool {
		d, err := dc.OpenAPISchema()
		doc = d
		return err == nil && v2Definition(d, v2ProbeKind) != nil
	})
	assert.Equal(t, "2.0", doc.GetSwagger())
	kind := v2Definition(doc, v2ProbeKind)
	var spec *openapi_v2.Schema
	for _, p := range kind.GetProperties().GetAdditionalProperties() {
		if p.GetName() == "spec" {
			spec = p.GetValue()
		}
	}
	require.NotNil(t, spec)
	assert.Equal(t, "What the probe holds.", spec.GetDescription())
	assert.NotNil(t, v2Definition(doc, v2ProbeKind+"List"))

	var js, pb response
	eventually(t, "the JSON and protobuf forms of one document", func() bool {
		js, pb = getAccept(t, c, "/openapi/v2", "application/json"), getAccept(t, c, "/openapi/v2", mediaOpenAPIV2PbAt)
		return js.code == http.StatusOK && pb.code == http.StatusOK && js.header.Get("Etag") == pb.header.Get("Etag")
	})
	assert.Equal(t, mediaOpenAPIV2Pb, pb.header.Get("Content-Type"))
	assert.Equal(t, "application/json", js.header.Get("Content-Type"))
	parsed, err := openapi_v2.ParseDocument(js.body)
	require.NoError(t, err)
	want, err := proto.Marshal(parsed)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, pb.body), "the protobuf is gnostic's message of the JSON document (%d bytes, gnostic's %d)", len(pb.body), len(want))
	assert.Equal(t, http.StatusNotModified, getAccept(t, c, "/openapi/v2", mediaOpenAPIV2Pb, "If-None-Match", pb.header.Get("Etag")).code)
	assert.Equal(t, http.StatusNotAcceptable, getAccept(t, c, "/openapi/v2", "application/xml").code)

	var v2 struct {
		Definitions map[string]struct {
			Properties map[string]struct {
				Required   []string
				Properties map[string]map[string]any
			}
		}
	}
	require.NoError(t, json.Unmarshal(js.body, &v2))
	narrowed := v2.Definitions[v2ProbeKind].Properties["spec"]
	assert.Equal(t, []string{"size"}, narrowed.Required, "a nullable member is not required in v2")
	for name, want := range map[string]map[string]any{
		"size":   {"type": "integer", "description": "Size in units.", "minimum": float64(1)},
		"color":  {"type": "string", "enum": []any{"red", "blue"}},
		"note":   {},
		"port":   {"x-kubernetes-int-or-string": true},
		"either": {"type": "string"},
		"free":   {"x-kubernetes-preserve-unknown-fields": true},
		"tmpl":   {"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
	} {
		assert.Equal(t, want, narrowed.Properties[name], name)
	}
}

// v2Definition is the named definition of a v2 document, nil if none.
func v2Definition(d *openapi_v2.Document, name string) *openapi_v2.Schema {
	for _, s := range d.GetDefinitions().GetAdditionalProperties() {
		if s.GetName() == name {
			return s.GetValue()
		}
	}
	return nil
}

// getAccept GETs path with an Accept header and further header pairs.
func getAccept(t *testing.T, c *client, path, accept string, headers ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, c.base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}
