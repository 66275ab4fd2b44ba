package builtin

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// updateCase is one entry of testdata/validation_update.json: an object
// as the real kube-apiserver v1.37.2 created it, that object changed by
// one field, and the server's answer to a dry-run PUT of the change.
type updateCase struct {
	Created json.RawMessage    `json:"created"`
	Update  json.RawMessage    `json:"update"`
	Code    int                `json:"code"`
	Message string             `json:"message"`
	Causes  []meta.StatusCause `json:"causes"`
	// AnswerSpec is the spec of the real answer to an allowed update of
	// a Service.
	AnswerSpec json.RawMessage `json:"answerSpec"`
}

// serviceAnswerKeys are the members of an allowed Service update's spec
// compared with the real answer's.
var serviceAnswerKeys = []string{"type", "clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "ports", "externalTrafficPolicy"}

// diffMessages are the cases whose real message ends in a dump of the
// server's internal Go types: only their start is compared.
var diffMessages = map[string]bool{"job-template": true, "pod-spec": true, "pvc-spec": true}

func TestValidateUpdateMatchesRealServer(t *testing.T) {
	cases := recordedCases[updateCase](t, "validation_update.json")
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, old, gvk := loadBytes(t, tc.Created)
			m, obj, _ := loadBytes(t, tc.Update)
			Default(gvk.Group, gvk.Version, gvk.Kind, m, &obj)
			var errs []FieldError
			if gvk.Group == "" && gvk.Kind == "Service" {
				errs = dryRunUpdateErrors(t, m, &obj, &old)
			} else {
				PrepareUpdate(gvk.Group, gvk.Kind, &obj, &old)
				errs = ValidateUpdate(gvk.Group, gvk.Kind, m, &obj, &old)
			}
			if tc.Code == 200 {
				assert.Empty(t, errs)
				if tc.AnswerSpec != nil {
					want := parse(t, string(tc.AnswerSpec))
					for _, k := range serviceAnswerKeys {
						assert.JSONEq(t, pick(t, want, k), pick(t, *obj.Get("spec"), k), "spec.%s", k)
					}
				}
				return
			}
			require.Len(t, errs, len(tc.Causes), "%v", errs)
			for i, c := range tc.Causes {
				assert.Equal(t, c.Field, errs[i].Field)
				assert.Equal(t, c.Type, errs[i].Type)
				if diffMessages[name] {
					prefix := strings.SplitN(c.Message, "\n", 2)[0]
					if name == "job-template" {
						prefix = "Invalid value: "
						assert.True(t, strings.HasSuffix(Message(errs[i]), ": field is immutable"))
					}
					assert.True(t, strings.HasPrefix(Message(errs[i]), prefix), "%q does not start with %q", Message(errs[i]), prefix)
					continue
				}
				assert.Equal(t, c.Message, Message(errs[i]))
			}
		})
	}
}

// dryRunUpdateErrors admits a defaulted Service update from old as a dry
// run with a service CIDR of 10.96.0.0/16 and returns the errors it is
// refused with.
func dryRunUpdateErrors(t *testing.T, m *meta.ObjectMeta, obj, old *jsonv.Value) []FieldError {
	t.Helper()
	alloc, err := NewServiceAllocator("10.96.0.0/16")
	require.NoError(t, err)
	w := Write{Env: Env{Now: time.Unix(0, 0)}, Services: alloc, DryRun: true}
	err = w.AdmitUpdate(Kind{Version: "v1", Kind: "Service"}, m, obj, old)
	var inv *Invalid
	if err != nil {
		require.ErrorAs(t, err, &inv)
		return inv.Errors
	}
	return nil
}

// recordedCases reads testdata/file, a JSON object of cases recorded
// from the real server by name; a file without cases fails the test.
func recordedCases[T any](t *testing.T, file string) map[string]T {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	require.NoError(t, err)
	var cases map[string]T
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases)
	return cases
}
