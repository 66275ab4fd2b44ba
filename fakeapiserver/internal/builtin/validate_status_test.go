package builtin

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// statusCase is one entry of testdata/validation_status.json: an object
// as the real kube-apiserver v1.37.2 stored it, that object with a new
// status, and the server's answer to a dry-run PUT of it to /status (the
// stored object when it was allowed).
type statusCase struct {
	Created  json.RawMessage    `json:"created"`
	Update   json.RawMessage    `json:"update"`
	Code     int                `json:"code"`
	Causes   []meta.StatusCause `json:"causes"`
	Response json.RawMessage    `json:"response"`
}

func TestValidateStatusMatchesRealServer(t *testing.T) {
	cases := recordedCases[statusCase](t, "validation_status.json")
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m, old, gvk := loadBytes(t, tc.Created)
			_, update, _ := loadBytes(t, tc.Update)
			obj := old.Clone()
			obj.Set("status", update.Get("status").Clone())
			// The write's time is the real server's clock at the write,
			// which the times it set show.
			var now time.Time
			if tc.Response != nil {
				var r struct {
					Status struct {
						LastPhaseTransitionTime time.Time `json:"lastPhaseTransitionTime"`
					} `json:"status"`
				}
				require.NoError(t, json.Unmarshal(tc.Response, &r))
				now = r.Status.LastPhaseTransitionTime
			}
			_, err := Write{Env: Env{Now: now}}.Status(Kind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, m, &obj, &old)
			if tc.Code == 200 {
				require.NoError(t, err)
				_, want, _ := loadBytes(t, tc.Response)
				assert.JSONEq(t, string(jsonv.Marshal(*want.Get("status"))), string(jsonv.Marshal(*obj.Get("status"))))
				return
			}
			var inv *Invalid
			require.ErrorAs(t, err, &inv)
			assert.ElementsMatch(t, causeStrings(tc.Causes), fieldErrorStrings(inv.Errors))
		})
	}
}

// causeStrings renders the real causes as "field: reason: message".
func causeStrings(causes []meta.StatusCause) []string {
	out := make([]string, len(causes))
	for i, c := range causes {
		out[i] = c.Field + ": " + string(c.Type) + ": " + c.Message
	}
	slices.Sort(out)
	return out
}

// fieldErrorStrings renders field errors as causeStrings does.
func fieldErrorStrings(errs []FieldError) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Field + ": " + string(e.Type) + ": " + Message(e)
	}
	slices.Sort(out)
	return out
}
