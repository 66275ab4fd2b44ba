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

func TestWriteCreateAndUpdate(t *testing.T) {
	alloc := newAlloc(t)
	w := Write{Env: Env{Now: time.Unix(0, 0)}, Services: alloc}
	svc := Kind{Version: "v1", Kind: "Service"}
	m := &meta.ObjectMeta{Name: "web", Namespace: "default", UID: "u"}
	obj := parse(t, `{"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`)
	require.NoError(t, w.Create(svc, m, &obj))
	ip := str(obj.Get("spec"), "clusterIP")
	assert.Regexp(t, `^10\.96\.`, ip)
	assert.JSONEq(t, `{"loadBalancer":{}}`, string(jsonv.Marshal(*obj.Get("status"))), "Complete ran")

	// An update without the addresses keeps them; one that changes the
	// cluster IP is refused as on the real server.
	upd := parse(t, `{"spec":{"selector":{"app":"web2"},"ports":[{"port":80}]}}`)
	require.NoError(t, w.Update(svc, m, &upd, &obj))
	assert.Equal(t, ip, str(upd.Get("spec"), "clusterIP"))
	bad := parse(t, `{"spec":{"clusterIP":"10.96.9.9","clusterIPs":["10.96.9.9"],"ports":[{"port":80}]}}`)
	err := w.Update(svc, m, &bad, &obj)
	var inv *Invalid
	require.True(t, errors.As(err, &inv))
	assert.Equal(t, `spec.clusterIPs[0]: Invalid value: ["10.96.9.9"]: may not change once set`, inv.Errors[0].String())

	// A refused create names the real causes.
	pod := parse(t, `{"spec":{"containers":[]}}`)
	err = w.Create(Kind{Version: "v1", Kind: "Pod"}, &meta.ObjectMeta{Name: "p", Namespace: "default"}, &pod)
	require.True(t, errors.As(err, &inv))
	assert.Equal(t, "spec.containers: Required value", inv.Errors[0].String())

	// The Priority plugin's refusal is a Forbidden.
	pod = parse(t, `{"spec":{"priorityClassName":"gold","containers":[{"name":"c","image":"x"}]}}`)
	err = w.Create(Kind{Version: "v1", Kind: "Pod"}, &meta.ObjectMeta{Name: "p", Namespace: "default"}, &pod)
	var fb *Forbidden
	require.True(t, errors.As(err, &fb))
	assert.Equal(t, "no PriorityClass with name gold was found", fb.Message)
}
