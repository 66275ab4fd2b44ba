package builtin

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// writeService creates or (old non-nil) updates a Service and returns its
// spec and the causes it is refused with.
func writeService(t *testing.T, w Write, uid, body string, old *jsonv.Value) (jsonv.Value, []string) {
	t.Helper()
	m := &meta.ObjectMeta{Name: "s-" + uid, Namespace: "default", UID: uid}
	obj := parse(t, body)
	k := Kind{Version: "v1", Kind: "Service"}
	var err error
	if old == nil {
		err = w.Create(k, m, &obj)
	} else {
		err = w.Update(k, m, &obj, old)
	}
	var msgs []string
	var inv *Invalid
	if errors.As(err, &inv) {
		for _, e := range inv.Errors {
			msgs = append(msgs, e.String())
		}
	} else {
		require.NoError(t, err)
	}
	return obj, msgs
}

// A refused Service write keeps nothing it reserved: the registry
// allocates before validation, so a refusal by validation gives the
// addresses back.
func TestServiceWriteRefusedByValidationReleases(t *testing.T) {
	w := Write{Env: Env{Now: time.Unix(0, 0)}, Services: newAlloc(t)}
	_, errs := writeService(t, w, "a", `{"spec":{"type":"NodePort","clusterIP":"10.96.0.10","sessionAffinity":"Sticky","ports":[{"port":80,"nodePort":30010}]}}`, nil)
	assert.Equal(t, []string{`spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"`}, errs)
	_, errs = writeService(t, w, "b", `{"spec":{"type":"NodePort","clusterIP":"10.96.0.10","ports":[{"port":80,"nodePort":30010}]}}`, nil)
	assert.Empty(t, errs, "the refused Service's address and port are free")

	// The registry's own checks come before validation and alone.
	_, errs = writeService(t, w, "c", `{"spec":{"clusterIP":"10.96.0.50","clusterIPs":["10.96.0.51"]}}`, nil)
	assert.Equal(t, []string{"spec.clusterIPs: Invalid value: [\"10.96.0.51\"]: first value must match `clusterIP`"}, errs)
	_, errs = writeService(t, w, "d", `{"spec":{"clusterIP":"10.96.0.10","ports":[{"port":80}]}}`, nil)
	assert.Equal(t, []string{`spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated`}, errs)
	_, errs = writeService(t, w, "e", `{"spec":{"clusterIP":"10.96.255.255","ports":[{"port":80}]}}`, nil)
	assert.Equal(t, []string{`spec.clusterIPs: Invalid value: ["10.96.255.255"]: failed to allocate IP 10.96.255.255: the provided network does not match the current range`}, errs)
}

// An update to ExternalName gives the cluster IP back and clears the
// fields that held it; one back from ExternalName gets a new one.
func TestServiceUpdateTypeChanges(t *testing.T) {
	w := Write{Env: Env{Now: time.Unix(0, 0)}, Services: newAlloc(t)}
	created, errs := writeService(t, w, "a", `{"spec":{"type":"NodePort","clusterIP":"10.96.0.10","ports":[{"port":80,"nodePort":30010}]}}`, nil)
	require.Empty(t, errs)

	// A refused update keeps what the Service held.
	_, errs = writeService(t, w, "a", `{"spec":{"type":"NodePort","sessionAffinity":"Sticky","ports":[{"port":80,"nodePort":30011}]}}`, &created)
	require.Len(t, errs, 1)
	_, errs = writeService(t, w, "x", `{"spec":{"type":"NodePort","clusterIP":"10.96.0.10","ports":[{"port":80,"nodePort":30010}]}}`, nil)
	assert.Equal(t, []string{`spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated`}, errs)

	upd := parse(t, string(jsonv.Marshal(created)))
	spec := upd.Get("spec")
	spec.Set("type", jsonv.NewString("ExternalName"))
	spec.Set("externalName", jsonv.NewString("a.example.com"))
	en, errs := writeService(t, w, "a", string(jsonv.Marshal(upd)), &created)
	require.Empty(t, errs)
	assert.JSONEq(t, `{"type":"ExternalName","ports":[{"port":80,"protocol":"TCP","targetPort":80}]}`,
		pick(t, *en.Get("spec"), "type", "clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "ports", "externalTrafficPolicy"))
	_, errs = writeService(t, w, "b", `{"spec":{"type":"NodePort","clusterIP":"10.96.0.10","ports":[{"port":80,"nodePort":30010}]}}`, nil)
	assert.Empty(t, errs, "the address and port are free again")

	back, errs := writeService(t, w, "a", `{"spec":{"type":"ClusterIP","ports":[{"port":80}]}}`, &en)
	require.Empty(t, errs)
	assert.Regexp(t, `^10\.96\.`, str(back.Get("spec"), "clusterIP"))
	assert.NotEqual(t, "10.96.0.10", str(back.Get("spec"), "clusterIP"))
	assert.JSONEq(t, `{"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack"}`, pick(t, *back.Get("spec"), "ipFamilies", "ipFamilyPolicy"))
}

// The cluster IP fields a dry-run create settles, as the real
// kube-apiserver v1.37.2 answered for the same specs (service CIDR
// 10.96.0.0/16, single-stack).
func TestServiceCreateSettlesFamilies(t *testing.T) {
	w := Write{Env: Env{Now: time.Unix(0, 0)}, Services: newAlloc(t), DryRun: true}
	for spec, want := range map[string]string{
		`{"clusterIP":"None","ipFamilies":["IPv6"]}`:                                                         `{"clusterIP":"None","clusterIPs":["None"],"ipFamilies":["IPv6","IPv4"],"ipFamilyPolicy":"RequireDualStack"}`,
		`{"clusterIP":"None","ipFamilies":["IPv6"],"ipFamilyPolicy":"SingleStack"}`:                          `{"clusterIP":"None","clusterIPs":["None"],"ipFamilies":["IPv6"],"ipFamilyPolicy":"SingleStack"}`,
		`{"clusterIP":"None","ipFamilyPolicy":"PreferDualStack","selector":{"a":"b"},"ports":[{"port":80}]}`: `{"clusterIP":"None","clusterIPs":["None"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"PreferDualStack"}`,
		`{"clusterIP":"None","ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"PreferDualStack"}`:               `{"clusterIP":"None","clusterIPs":["None"],"ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"PreferDualStack"}`,
		`{"ipFamilyPolicy":"PreferDualStack","ports":[{"port":80}]}`:                                         `{"clusterIP":"10.96.0.0","clusterIPs":["10.96.0.0"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"PreferDualStack"}`,
		`{"clusterIP":"10.96.7.7","ports":[{"port":80}]}`:                                                    `{"clusterIP":"10.96.7.7","clusterIPs":["10.96.7.7"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack"}`,
		`{"clusterIP":"10.96.7.7","clusterIPs":["10.96.7.7"],"ipFamilies":["IPv4"],"ports":[{"port":80}]}`:   `{"clusterIP":"10.96.7.7","clusterIPs":["10.96.7.7"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack"}`,
		`{"type":"ExternalName","externalName":"a.example.com."}`:                                            `{}`,
	} {
		obj, errs := writeService(t, w, "a", `{"spec":`+spec+`}`, nil)
		require.Empty(t, errs, spec)
		assert.JSONEq(t, want, pick(t, *obj.Get("spec"), "clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"), spec)
	}
}
