package strategicpatch

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

type recordedCase struct {
	Name  string `json:"name"`
	Steps []struct {
		Body     json.RawMessage `json:"body"`
		Status   int             `json:"status"`
		Response json.RawMessage `json:"response"`
	} `json:"steps"`
}

// decodeFailures are cases whose patch merges fine but whose result the
// real server then fails to decode into the kind's Go type (a list where
// a map belongs): that check is not strategic merge patch's.
var decodeFailures = map[string]bool{
	"error-patch-list-where-map": true,
	"map-type-mismatch-replaced": true,
}

// TestRecordedCases replays the patches recorded against a real
// kube-apiserver (testdata/cases.yaml, recorded by ./recorder) and checks
// that Apply gives what the server stored, or fails as the server did.
func TestRecordedCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/cases.golden.json")
	require.NoError(t, err)
	var cases []recordedCase
	require.NoError(t, json.Unmarshal(raw, &cases))
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			require.Len(t, c.Steps, 2)
			created, sent := c.Steps[0], c.Steps[1]
			require.Equal(t, 201, created.Status, "the original was created: %s", created.Response)
			schema := schemaOf(t, created.Response)
			got, err := Apply(created.Response, sent.Body, schema)
			if sent.Status != 200 && !decodeFailures[c.Name] {
				var pe *Error
				require.ErrorAs(t, err, &pe, "Apply(%s) = %s, want the server's %d", sent.Body, got, sent.Status)
				var st struct{ Message string }
				require.NoError(t, json.Unmarshal(sent.Response, &st))
				assert.Equal(t, sent.Status, pe.Code, "status of %q", pe.Msg)
				assert.Equal(t, strings.TrimSpace(st.Message), strings.TrimSpace(pe.Msg))
				return
			}
			require.NoError(t, err, "Apply(%s)", sent.Body)
			if decodeFailures[c.Name] {
				return
			}
			want := normalize(t, sent.Response)
			assert.JSONEq(t, string(jsonv.Marshal(want)), string(jsonv.Marshal(normalize(t, got))))
		})
	}
}

func schemaOf(t *testing.T, obj []byte) Schema {
	var tm struct{ Kind, APIVersion string }
	require.NoError(t, json.Unmarshal(obj, &tm))
	group, version, ok := strings.Cut(tm.APIVersion, "/")
	if !ok {
		group, version = "", tm.APIVersion
	}
	s, ok := ForKind(openapi.Builtin(), openapi.GVK{Group: group, Version: version, Kind: tm.Kind})
	require.True(t, ok, "schema of %s %s", tm.APIVersion, tm.Kind)
	return s
}

// normalize removes what the server adds on its own from a stored
// object: system metadata, status, the defaults of containers, ports and
// volumes, and empty maps and lists (which its Go types omit).
func normalize(t *testing.T, doc []byte) jsonv.Value {
	res, err := jsonv.Parse(doc)
	require.NoError(t, err)
	v := res.Value
	if md := v.Get("metadata"); md != nil {
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "namespace"} {
			md.Delete(k)
		}
	}
	v.Delete("status")
	if spec := v.Get("spec"); spec != nil {
		if tmpl := spec.Get("template"); tmpl != nil {
			if ps := tmpl.Get("spec"); ps != nil {
				defaultPodSpec(ps)
			}
		}
	}
	return dropEmpty(v)
}

func defaultPodSpec(ps *jsonv.Value) {
	set := func(o *jsonv.Value, k string, v jsonv.Value) {
		if o.Get(k) == nil {
			o.Set(k, v)
		}
	}
	if cs := ps.Get("containers"); cs != nil {
		for i := range cs.Arr {
			c := &cs.Arr[i]
			set(c, "imagePullPolicy", jsonv.NewString("IfNotPresent"))
			set(c, "terminationMessagePath", jsonv.NewString("/dev/termination-log"))
			set(c, "terminationMessagePolicy", jsonv.NewString("File"))
			if ports := c.Get("ports"); ports != nil {
				for j := range ports.Arr {
					set(&ports.Arr[j], "protocol", jsonv.NewString("TCP"))
				}
			}
		}
	}
	if vols := ps.Get("volumes"); vols != nil {
		for i := range vols.Arr {
			for _, src := range []string{"secret", "configMap"} {
				if s := vols.Arr[i].Get(src); s != nil {
					set(s, "defaultMode", jsonv.Value{Kind: jsonv.Number, Str: "420"})
				}
			}
		}
	}
}

func dropEmpty(v jsonv.Value) jsonv.Value {
	return jsonv.Pruned(v, func(_ string, c jsonv.Value) bool {
		return (c.Kind == jsonv.Object && len(c.Obj) == 0) || (c.Kind == jsonv.Array && len(c.Arr) == 0)
	})
}

func TestErrorIsTyped(t *testing.T) {
	_, err := Apply([]byte(`{"a":{}}`), []byte(`{"a":{"$patch":"bogus"}}`), nil)
	var pe *Error
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 500, pe.Code)
}
