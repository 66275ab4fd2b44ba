package table_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/table"
)

// A Deployment as kubectl get deployments sees it: the real server's
// columns (priority 1 only with -o wide) and cells.
func Example() {
	res, _ := jsonv.Parse([]byte(`{"kind":"Deployment","apiVersion":"apps/v1",
"metadata":{"name":"web","creationTimestamp":"2025-01-01T00:00:00Z"},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
  "template":{"spec":{"containers":[{"name":"app","image":"app:1"},{"name":"proxy","image":"proxy:2"}]}}},
"status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}}`))
	p := table.For("apps", "deployments")
	var cols []string
	for _, c := range p.Columns() {
		cols = append(cols, fmt.Sprintf("%s(%d)", c.Name, c.Priority))
	}
	fmt.Println(strings.Join(cols, " "))
	fmt.Println(p.Cells(res.Value, time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC)))
	// Output:
	// Name(0) Ready(0) Up-to-date(0) Available(0) Age(0) Containers(1) Images(1) Selector(1)
	// [web 2/3 3 2 3h app,proxy app:1,proxy:2 app=web]
}
