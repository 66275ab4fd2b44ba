package builtin

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

func TestBootstrap(t *testing.T) {
	objs, err := Bootstrap(6443, "10.96.0.1", "10.96.0.0/16", time.Unix(0, 0))
	require.NoError(t, err)
	count := map[string]int{}
	byName := map[string]BootstrapObject{}
	for _, o := range objs {
		count[o.Kind]++
		byName[o.Kind+"/"+o.Namespace+"/"+o.Name] = o
	}
	assert.Equal(t, 4, count["Namespace"])
	assert.Equal(t, 2, count["PriorityClass"])
	assert.Equal(t, 73, count["ClusterRole"])
	assert.Equal(t, 54, count["ClusterRoleBinding"])
	assert.Equal(t, 8, count["PriorityLevelConfiguration"])
	assert.Equal(t, 11, count["FlowSchema"])
	assert.Equal(t, "Namespace", objs[0].Kind, "namespaces come first")

	svc := byName["Service/default/kubernetes"]
	assert.JSONEq(t, `{"name":"https","protocol":"TCP","port":443,"targetPort":6443}`,
		string(jsonv.Marshal(svc.Object.Get("spec").Get("ports").Arr[0])))
	assert.Equal(t, "rbac.authorization.k8s.io", byName["ClusterRole//cluster-admin"].Group())
	assert.Equal(t, "", svc.Group())
	cidr := byName["ServiceCIDR//kubernetes"]
	assert.Equal(t, `["10.96.0.0/16"]`, string(jsonv.Marshal(*cidr.Object.Get("spec").Get("cidrs"))))
	assert.Equal(t, "1970-01-01T00:00:00Z", cidr.Object.Get("status").Get("conditions").Arr[0].Get("lastTransitionTime").Str)
}
