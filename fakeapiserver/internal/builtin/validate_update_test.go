package builtin

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
}

// diffMessages are the cases whose real message ends in a dump of the
// server's internal Go types: only their start is compared.
var diffMessages = map[string]bool{"job-template": true, "pod-spec": true, "pvc-spec": true}

func TestValidateUpdateMatchesRealServer(t *testing.T) {
	data, err := os.ReadFile("testdata/validation_update.json")
	require.NoError(t, err)
	var cases map[string]updateCase
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, old, gvk := loadBytes(t, tc.Created)
			m, obj, _ := loadBytes(t, tc.Update)
			Default(gvk.Group, gvk.Version, gvk.Kind, m, &obj)
			PrepareUpdate(gvk.Group, gvk.Kind, &obj, &old)
			errs := ValidateUpdate(gvk.Group, gvk.Kind, m, &obj, &old)
			if tc.Code == 200 {
				assert.Empty(t, errs)
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
