package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
	"github.com/kubecache/kubecache/meta"
)

// realStatus is what testdata/validation/*.real.json hold: the real
// kube-apiserver v1.37.2's answer to a dry-run create of the .in.json body.
// Those under testdata/validation-privileged are the answers of a real
// server started with --allow-privileged=true, as kind and kubeadm start
// it and as the fake server behaves (the e2e comparison's real server runs
// without it, and refuses privileged containers first).
type realStatus struct {
	Code    int                `json:"code"`
	Message string             `json:"message"`
	Causes  []meta.StatusCause `json:"causes"`
}

// TestValidateMatchesRealServer defaults, prepares and validates each
// testdata/validation/*.in.json and compares the field errors with the
// causes the real server answered. Causes are compared as a set: the real
// server walks maps in random order.
func TestValidateMatchesRealServer(t *testing.T) {
	ins, err := filepath.Glob("testdata/validation/*.in.json")
	require.NoError(t, err)
	require.NotEmpty(t, ins)
	privileged, err := filepath.Glob("testdata/validation-privileged/*.in.json")
	require.NoError(t, err)
	require.NotEmpty(t, privileged)
	for _, in := range append(ins, privileged...) {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		if slices.Contains(privileged, in) {
			name = "privileged/" + name
		}
		t.Run(name, func(t *testing.T) {
			m, obj, gvk := loadStored(t, in)
			data, err := os.ReadFile(strings.TrimSuffix(in, ".in.json") + ".real.json")
			require.NoError(t, err)
			var want realStatus
			require.NoError(t, json.Unmarshal(data, &want))
			m.UID = "00000000-0000-0000-0000-000000000001"
			Default(gvk.Group, gvk.Version, gvk.Kind, m, &obj)
			if want.Code == 403 {
				// An admission plugin's refusal, named by its message.
				err := Write{Env: Env{Now: time.Unix(0, 0)}, DryRun: true}.AdmitCreate(Kind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, m, &obj)
				var fb *Forbidden
				require.ErrorAs(t, err, &fb)
				assert.Equal(t, want.Message, strings.ToLower(gvk.Kind)+`s "`+m.Name+`" is forbidden: `+fb.Message)
				return
			}
			require.Equal(t, 422, want.Code)
			var errs []FieldError
			if gvk.Group == "" && gvk.Kind == "Service" {
				// The registry checks a Service's cluster IP fields and
				// allocates before validation, and its errors come alone.
				errs = dryRunCreateErrors(t, m, &obj)
			} else {
				require.NoError(t, PrepareCreate(gvk.Group, gvk.Kind, m, &obj, Env{Now: time.Unix(0, 0)}))
				before := string(jsonv.Marshal(obj))
				errs = Validate(gvk.Group, gvk.Kind, m, &obj)
				assert.Equal(t, before, string(jsonv.Marshal(obj)), "Validate changed the object")
			}
			// The causes of the 422 are compared: it lists an error
			// reported twice once, as the real server does.
			var got []string
			if len(errs) > 0 {
				for _, c := range apistatus.Invalid(gvk.Group, gvk.Kind, m.Name, errs).Details.Causes {
					got = append(got, causeString(c))
				}
			}
			var wantS []string
			for _, c := range want.Causes {
				wantS = append(wantS, causeString(c))
			}
			slices.Sort(got)
			slices.Sort(wantS)
			assert.Equal(t, wantS, got)
		})
	}
}

// dryRunCreateErrors admits a defaulted new Service as a dry-run create
// with a service CIDR of 10.96.0.0/16 (the real server's) and returns
// the errors it is refused with.
func dryRunCreateErrors(t *testing.T, m *meta.ObjectMeta, obj *jsonv.Value) []FieldError {
	t.Helper()
	alloc, err := NewServiceAllocator("10.96.0.0/16")
	require.NoError(t, err)
	w := Write{Env: Env{Now: time.Unix(0, 0)}, Services: alloc, DryRun: true}
	err = w.AdmitCreate(Kind{Version: "v1", Kind: "Service"}, m, obj)
	var inv *Invalid
	if err != nil {
		require.ErrorAs(t, err, &inv)
		return inv.Errors
	}
	return nil
}

// loadStored loads an object as the fake server validates it: converted
// to its storage version first when written at a converting one (an
// autoscaling/v1 HPA is checked as autoscaling/v2).
func loadStored(t *testing.T, path string) (*meta.ObjectMeta, jsonv.Value, openapi.GVK) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var head struct{ APIVersion, Kind string }
	require.NoError(t, json.Unmarshal(data, &head))
	if c, ok := Conversions[head.APIVersion+"/"+head.Kind]; ok {
		data, err = c.ToStored(data)
		require.NoError(t, err)
	}
	return loadBytes(t, data)
}

func causeString(c meta.StatusCause) string {
	return c.Field + " | " + string(c.Type) + " | " + c.Message
}

// TestValidateAcceptsWhatTheRealServerAccepts validates every object of
// testdata/defaults, which the real server created: none may fail.
func TestValidateAcceptsWhatTheRealServerAccepts(t *testing.T) {
	ins, err := filepath.Glob("testdata/defaults/*.in.json")
	require.NoError(t, err)
	for _, in := range ins {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".in.json"), func(t *testing.T) {
			m, obj, gvk := load(t, in)
			m.UID = "00000000-0000-0000-0000-000000000001"
			Default(gvk.Group, gvk.Version, gvk.Kind, m, &obj)
			require.NoError(t, PrepareCreate(gvk.Group, gvk.Kind, m, &obj, Env{Now: time.Unix(0, 0)}))
			assert.Empty(t, Validate(gvk.Group, gvk.Kind, m, &obj))
		})
	}
}

// TestDataSizeLimit checks the 1 MiB limit of ConfigMap and Secret data
// with the real server's causes (too large for testdata files).
func TestDataSizeLimit(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	cm := jsonv.NewObject()
	cm.Set("data", object(jsonv.Member{Key: "a", Value: jsonv.NewString(big)}, jsonv.Member{Key: "b", Value: jsonv.NewString("y")}))
	errs := Validate("", "ConfigMap", &meta.ObjectMeta{Name: "c"}, &cm)
	require.Len(t, errs, 1)
	assert.Equal(t, "[]: Too long: may not be more than 1048576 bytes", errs[0].String())

	exact := jsonv.NewObject()
	exact.Set("data", object(jsonv.Member{Key: "a", Value: jsonv.NewString(big)}))
	assert.Empty(t, Validate("", "ConfigMap", &meta.ObjectMeta{Name: "c"}, &exact), "exactly 1 MiB is allowed")

	secret := jsonv.NewObject()
	secret.Set("stringData", object(jsonv.Member{Key: "a", Value: jsonv.NewString(big)}, jsonv.Member{Key: "b", Value: jsonv.NewString("y")}))
	m := &meta.ObjectMeta{Name: "s"}
	Default("", "v1", "Secret", m, &secret)
	require.NoError(t, PrepareCreate("", "Secret", m, &secret, Env{}))
	errs = Validate("", "Secret", m, &secret)
	require.Len(t, errs, 1)
	assert.Equal(t, "data: Too long: may not be more than 1048576 bytes", errs[0].String())
}
