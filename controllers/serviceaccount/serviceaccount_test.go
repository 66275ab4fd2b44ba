package serviceaccount_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/kubecache/kubecache/cluster"
	"github.com/kubecache/kubecache/controllers"
	"github.com/kubecache/kubecache/controllers/api"
	"github.com/kubecache/kubecache/controllers/kit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func defaultIn(ns string) func([]*api.ServiceAccount) bool {
	return func(sas []*api.ServiceAccount) bool {
		for _, sa := range sas {
			if sa.Namespace == ns && sa.Name == "default" {
				return true
			}
		}
		return false
	}
}

// TestDefaultServiceAccountInEveryNamespace sees the default
// ServiceAccount appear in the namespaces that exist, in a new one, and
// again after it is deleted.
func TestDefaultServiceAccountInEveryNamespace(t *testing.T) {
	c := cluster.Start(t, cluster.Options{Controllers: []string{controllers.ServiceAccount}})
	ctx := context.Background()
	cluster.Await(t, c, "serviceaccounts", "default in default", defaultIn("default"))
	cluster.Await(t, c, "serviceaccounts", "default in kube-system", defaultIn("kube-system"))

	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop"}}
	require.NoError(t, kit.Create(ctx, c.Client, kit.Target{Resource: "namespaces"}, ns, nil))
	cluster.Await(t, c, "serviceaccounts", "default in shop", defaultIn("shop"))

	require.NoError(t, kit.Delete(ctx, c.Client, kit.Target{Resource: "serviceaccounts", Namespace: "shop", Name: "default"}, "", nil))
	cluster.Await(t, c, "serviceaccounts", "default in shop again", defaultIn("shop"))
}
