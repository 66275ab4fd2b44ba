package builtin

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

func newAlloc(t *testing.T) *ServiceAllocator {
	t.Helper()
	a, err := NewServiceAllocator("10.96.0.0/16")
	require.NoError(t, err)
	return a
}

// allocate defaults a Service spec and allocates it for key.
func allocate(t *testing.T, a *ServiceAllocator, key, spec string, dryRun bool) (jsonv.Value, []string) {
	t.Helper()
	obj := parse(t, `{"spec":`+spec+`}`)
	Default("", "v1", "Service", nil, &obj)
	var msgs []string
	errs, err := a.Allocate(key, obj.Get("spec"), dryRun)
	for _, e := range errs {
		msgs = append(msgs, e.Field+": "+string(e.Type)+": "+e.Value+": "+e.Detail)
	}
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	return *obj.Get("spec"), msgs
}

// The errors below are the real kube-apiserver v1.37.2's for the same
// requests (service CIDR 10.96.0.0/16).
func TestServiceAllocatorClusterIPs(t *testing.T) {
	a := newAlloc(t)
	assert.Equal(t, "10.96.0.1", a.FirstIP())
	spec, errs := allocate(t, a, "default/a1", `{"clusterIP":"10.96.0.10","ports":[{"port":80}]}`, false)
	require.Empty(t, errs)
	assert.JSONEq(t, `["10.96.0.10"]`, string(jsonv.Marshal(*spec.Get("clusterIPs"))))
	assert.JSONEq(t, `["IPv4"]`, string(jsonv.Marshal(*spec.Get("ipFamilies"))))
	assert.Equal(t, "SingleStack", str(&spec, "ipFamilyPolicy"))

	_, errs = allocate(t, a, "default/a2", `{"clusterIP":"10.96.0.10","ports":[{"port":80}]}`, false)
	assert.Equal(t, []string{`spec.clusterIPs: FieldValueInvalid: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated`}, errs)
	_, errs = allocate(t, a, "default/a3", `{"clusterIP":"10.200.0.10","ports":[{"port":80}]}`, false)
	assert.Equal(t, []string{`spec.clusterIPs: FieldValueInvalid: ["10.200.0.10"]: failed to allocate IP 10.200.0.10: the provided network does not match the current range`}, errs)
	_, errs = allocate(t, a, "default/c2", `{"clusterIP":"bogus","ports":[{"port":80}]}`, false)
	assert.Equal(t, []string{`spec.clusterIPs[0]: FieldValueInvalid: "bogus": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}, errs)
	_, errs = allocate(t, a, "default/c3", `{"clusterIPs":["10.96.0.20"],"ports":[{"port":80}]}`, false)
	assert.Equal(t, []string{"spec.clusterIPs: FieldValueInvalid: [\"10.96.0.20\"]: must be empty when `clusterIP` is not specified"}, errs)
	_, errs = allocate(t, a, "default/d1", `{"ipFamilyPolicy":"RequireDualStack","ports":[{"port":80}]}`, false)
	assert.Equal(t, []string{`spec.ipFamilyPolicy: FieldValueInvalid: "RequireDualStack": this cluster is not configured for dual-stack services`}, errs)
	_, errs = allocate(t, a, "default/d3", `{"ipFamilies":["IPv6"],"ports":[{"port":80}]}`, false)
	assert.Equal(t, []string{`spec.ipFamilies[0]: FieldValueInvalid: "IPv6": not configured on this cluster`}, errs)

	a.Release("default/a1")
	_, errs = allocate(t, a, "default/b1", `{"clusterIP":"10.96.0.10","ports":[{"port":80}]}`, false)
	assert.Empty(t, errs, "a released address is free again")

	spec, errs = allocate(t, a, "default/auto", `{"ports":[{"port":80}]}`, false)
	require.Empty(t, errs)
	assert.NotEqual(t, "10.96.0.10", str(&spec, "clusterIP"))
	assert.Regexp(t, `^10\.96\.`, str(&spec, "clusterIP"))
}

func TestServiceAllocatorHeadlessAndExternalName(t *testing.T) {
	a := newAlloc(t)
	spec, errs := allocate(t, a, "default/h1", `{"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":80}]}`, false)
	require.Empty(t, errs)
	assert.JSONEq(t, `{"clusterIP":"None","clusterIPs":["None"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack"}`,
		pick(t, spec, "clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"))
	spec, errs = allocate(t, a, "default/h2", `{"clusterIP":"None"}`, false)
	require.Empty(t, errs)
	assert.JSONEq(t, `{"clusterIP":"None","clusterIPs":["None"],"ipFamilies":["IPv4","IPv6"],"ipFamilyPolicy":"RequireDualStack"}`,
		pick(t, spec, "clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"))
	spec, errs = allocate(t, a, "default/x", `{"type":"ExternalName","externalName":"x.example.com"}`, false)
	require.Empty(t, errs)
	assert.Nil(t, spec.Get("clusterIP"))
}

func TestServiceAllocatorNodePorts(t *testing.T) {
	a := newAlloc(t)
	spec, errs := allocate(t, a, "default/a4", `{"type":"NodePort","ports":[{"port":80,"nodePort":30080},{"port":81}]}`, false)
	require.Empty(t, errs)
	ports := spec.Get("ports")
	assert.Equal(t, "30080", ports.Arr[0].Get("nodePort").Str)
	assert.NotNil(t, ports.Arr[1].Get("nodePort"))
	_, errs = allocate(t, a, "default/a5", `{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}`, false)
	assert.Equal(t, []string{`spec.ports[0].nodePort: FieldValueInvalid: 30080: provided port is already allocated`}, errs)
	_, errs = allocate(t, a, "default/a6", `{"type":"NodePort","ports":[{"port":80,"nodePort":80}]}`, false)
	assert.Equal(t, []string{`spec.ports[0].nodePort: FieldValueInvalid: 80: provided port is not in the valid range. The range of valid ports is 30000-32767`}, errs)

	// A dry run shows the real server's placeholders and reserves nothing.
	spec, errs = allocate(t, a, "default/l1", `{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":80}]}`, true)
	require.Empty(t, errs)
	assert.Equal(t, "10.96.0.0", str(&spec, "clusterIP"))
	assert.Equal(t, "32769", spec.Get("ports").Arr[0].Get("nodePort").Str)
	assert.Equal(t, "32770", spec.Get("healthCheckNodePort").Str)

	// An update that leaves the node ports out keeps them; a change to
	// ClusterIP frees them.
	old, errs := allocate(t, a, "default/u", `{"type":"NodePort","ports":[{"port":90}]}`, false)
	require.Empty(t, errs)
	np := old.Get("ports").Arr[0].Get("nodePort").Str
	upd := parse(t, `{"type":"NodePort","ports":[{"port":90,"protocol":"TCP"}]}`)
	errs2, err := a.Update("default/u", &upd, &old, false)
	require.NoError(t, err)
	require.Empty(t, errs2)
	assert.Equal(t, np, upd.Get("ports").Arr[0].Get("nodePort").Str)
	assert.Equal(t, str(&old, "clusterIP"), str(&upd, "clusterIP"))
	toCluster := parse(t, `{"type":"ClusterIP","ports":[{"port":90,"protocol":"TCP"}]}`)
	errs2, err = a.Update("default/u", &toCluster, &upd, false)
	require.NoError(t, err)
	require.Empty(t, errs2)
	assert.Nil(t, toCluster.Get("ports").Arr[0].Get("nodePort"))
	_, errs = allocate(t, a, "default/v", `{"type":"NodePort","ports":[{"port":80,"nodePort":`+np+`}]}`, false)
	assert.Empty(t, errs, "the node port was released")
}

// TestServiceAllocatorRangeFull fills a /28 (13 addresses past the
// kubernetes Service's), as a real kube-apiserver v1.37.2 started with
// --service-cluster-ip-range=10.96.0.0/28 was filled: the next Service
// is refused with RangeFull, which the server answers with the real 500,
// and a dry run still shows the network address.
func TestServiceAllocatorRangeFull(t *testing.T) {
	a, err := NewServiceAllocator("10.96.0.0/28")
	require.NoError(t, err)
	_, errs := allocate(t, a, "default/kubernetes", `{"clusterIP":"`+a.FirstIP()+`","ports":[{"port":443}]}`, false)
	require.Empty(t, errs)
	for i := range 13 {
		_, errs := allocate(t, a, "default/s"+strconv.Itoa(i), `{"ports":[{"port":80}]}`, false)
		require.Empty(t, errs, "service %d", i)
	}
	obj := parse(t, `{"spec":{"ports":[{"port":80}]}}`)
	Default("", "v1", "Service", nil, &obj)
	w := Write{Services: a}
	err = w.AdmitCreate(Kind{Version: "v1", Kind: "Service"}, &meta.ObjectMeta{Name: "s14", Namespace: "default", UID: "u14"}, &obj)
	var full RangeFull
	require.ErrorAs(t, err, &full)
	assert.Equal(t, `failed to allocate a serviceIP for Service "s14": range is full`, full.Error())

	spec, errs := allocate(t, a, "default/dry", `{"ports":[{"port":80}]}`, true)
	require.Empty(t, errs)
	assert.Equal(t, "10.96.0.0", str(&spec, "clusterIP"))
}

// pick encodes the named members of v.
func pick(t *testing.T, v jsonv.Value, keys ...string) string {
	t.Helper()
	out := jsonv.NewObject()
	for _, k := range keys {
		if m := v.Get(k); m != nil {
			out.Set(k, *m)
		}
	}
	return string(jsonv.Marshal(out))
}
