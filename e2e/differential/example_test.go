package differential_test

import (
	"fmt"

	"github.com/kubecache/kubecache/e2e/differential"
)

// ExampleParseKubectlLog reads the requests and answers out of a kubectl
// -v=9 log.
func ExampleParseKubectlLog() {
	log := `I1130 02:59:43.836938   16990 round_trippers.go:560] GET https://127.0.0.1:6443/api/v1/namespaces/default/configmaps/k 404 Not Found in 3 milliseconds
I1130 02:59:43.837038   16990 helper.go:105] "Response Body" body="{\"kind\":\"Status\",\"reason\":\"NotFound\"}"
I1130 02:59:43.837470   16990 helper.go:246] "Request Body" body=<
	{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k"}}
 >
I1130 02:59:43.841862   16990 round_trippers.go:560] POST https://127.0.0.1:6443/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply 201 Created in 4 milliseconds
`
	for _, x := range differential.ParseKubectlLog(log) {
		fmt.Println(x)
		if x.RequestBody != "" {
			fmt.Println("  sent", x.RequestBody)
		}
		if x.Body != "" {
			fmt.Println("  got", x.Body)
		}
	}
	// Output:
	// GET /api/v1/namespaces/default/configmaps/k → 404
	//   got {"kind":"Status","reason":"NotFound"}
	// POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply → 201
	//   sent {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k"}}
}
