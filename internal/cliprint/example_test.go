package cliprint_test

import (
	"encoding/json"
	"os"
	"time"

	"github.com/kubecache/kubecache/internal/cliprint"
	"github.com/kubecache/kubecache/meta"
)

// Two deployments printed as kubectl prints them, with -A's NAMESPACE
// column.
func Example() {
	var objs []*meta.Unstructured
	for _, doc := range []string{
		`{"metadata":{"name":"web","namespace":"shop","creationTimestamp":"2030-01-01T00:00:00Z"},
		  "spec":{"replicas":3},"status":{"readyReplicas":3,"updatedReplicas":3,"availableReplicas":3}}`,
		`{"metadata":{"name":"db","namespace":"shop","creationTimestamp":"2030-01-01T00:00:00Z"},
		  "spec":{"replicas":1},"status":{"updatedReplicas":1}}`,
	} {
		var u meta.Unstructured
		if err := json.Unmarshal([]byte(doc), &u); err != nil {
			panic(err)
		}
		objs = append(objs, &u)
	}
	res := cliprint.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	now := time.Date(2030, 1, 1, 5, 30, 0, 0, time.UTC)
	if err := cliprint.Print(os.Stdout, res, objs, cliprint.Options{WithNamespace: true, Now: now}); err != nil {
		panic(err)
	}
	// Output:
	// NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE
	// shop        web    3/3     3            3           5h30m
	// shop        db     0/1     1            0           5h30m
}
